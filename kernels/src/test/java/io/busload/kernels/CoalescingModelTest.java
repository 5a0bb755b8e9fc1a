package io.busload.kernels;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CoalescingModelTest {

  private static List<Coalescing> model(long stride) {
    return new KernelCase(Catalog.STRIDE_COPY_FP32, Map.of("stride", stride)).coalescing();
  }

  @Test
  void strideOne_fp32Load_fourSectorsOneLine() {
    Coalescing load = model(1).get(0);
    assertThat(load.store()).isFalse();
    assertThat(load.sectorsPerRequest()).isEqualTo(4); // 128 B / 32 B
    assertThat(load.linesPerRequest()).isEqualTo(1);
    assertThat(load.efficiency()).isEqualTo(1.0);
  }

  @Test
  void strideS_fp32Load_minOfFourSAndThirtyTwoSectors() {
    for (long s : Catalog.STRIDES) {
      assertThat(model(s).get(0).sectorsPerRequest()).as("stride %d", s).isEqualTo((int) Math.min(4 * s, 32));
      assertThat(model(s).get(0).linesPerRequest()).as("stride %d", s).isEqualTo((int) Math.min(s, 32));
    }
  }

  @Test
  void anyStride_store_fourSectors() {
    for (long s : Catalog.STRIDES) {
      Coalescing store = model(s).get(1);
      assertThat(store.store()).isTrue();
      assertThat(store.sectorsPerRequest()).isEqualTo(4);
    }
  }

  @Test
  void simulator_misalignedWarp_countsTheExtraSector() {
    // 32 consecutive floats starting 16 bytes into a sector straddle five sectors and two lines.
    WarpSimulator.Request r = WarpSimulator.simulate(lane -> 16 + lane * 4, 4);
    assertThat(r.sectors()).isEqualTo(5);
    assertThat(r.lines()).isEqualTo(2);
  }

  @Test
  void simulator_allLanesSameAddress_oneSector() {
    assertThat(WarpSimulator.simulate(lane -> 64, 4).sectors()).isEqualTo(1);
  }

  @Test
  void memcpy_noWarpOfOurs_emptyModel() {
    assertThat(Catalog.MEMCPY_D2D.cases().getFirst().coalescing()).isEmpty();
  }
}
