package io.busload.kernels.families;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static org.assertj.core.api.Assertions.assertThat;

import io.busload.kernels.Arg;
import io.busload.kernels.Check;
import io.busload.kernels.Coalescing;
import io.busload.kernels.Dim3;
import io.busload.kernels.Harness;
import io.busload.kernels.Program;
import io.busload.kernels.Step;
import io.busload.kernels.Traffic;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.Test;

class Conv2dTest {
  private final Conv2d family = new Conv2d();

  @Test
  void check_runOnCpuOutputOfBothVariants_passes() {
    Harness.assertEveryVariantPasses(family, List.of(3L, 45L), n -> 2 * n * n);
  }

  @Test
  void runOnCpu_cornerAndInterior_byHand() {
    try (Arena arena = Arena.ofShared()) {
      MemorySegment out = Harness.runOnCpu(program(Conv2d.Variant.NAIVE, 5), arena).get(1);
      double corner = 8 * Conv2d.input(0) - Conv2d.input(1) - Conv2d.input(5) - Conv2d.input(6);
      assertThat(out.getAtIndex(JAVA_DOUBLE, 0)).isCloseTo(corner, org.assertj.core.data.Offset.offset(1e-12));
      double interior = 9 * Conv2d.input(2 * 5 + 2);
      for (int r = 1; r <= 3; r++) {
        for (int c = 1; c <= 3; c++) {
          interior -= Conv2d.input(r * 5 + c);
        }
      }
      assertThat(out.getAtIndex(JAVA_DOUBLE, 2 * 5 + 2)).isCloseTo(interior, org.assertj.core.data.Offset.offset(1e-12));
    }
  }

  @Test
  void check_corruptedOutput_failsWithFirstMismatches() {
    Program p = program(Conv2d.Variant.COALESCED, 32);
    try (Arena arena = Arena.ofShared()) {
      List<MemorySegment> buffers = Harness.runOnCpu(p, arena);
      MemorySegment out = buffers.get(1);
      double good = out.getAtIndex(JAVA_DOUBLE, 4 * 32 + 7);
      out.setAtIndex(JAVA_DOUBLE, 4 * 32 + 7, good * (1 + 1e-9)); // one ulp-scale error far beyond rounding
      out.setAtIndex(JAVA_DOUBLE, 9 * 32 + 1, Double.longBitsToDouble(-1L));
      out.setAtIndex(JAVA_DOUBLE, 10 * 32 + 1, out.getAtIndex(JAVA_DOUBLE, 10 * 32 + 1) + 1e-15); // within tolerance
      Check check = p.check(buffers);
      assertThat(check.mismatchCount()).isEqualTo(2);
      assertThat(check.mismatches().getFirst()).startsWith("out[4][7]: expected " + good + ", got ");
      assertThat(check.mismatches().get(1)).startsWith("out[9][1]: ").endsWith("got poison (never written)");
    }
  }

  @Test
  void check_inputOverwritten_reportsTheInput() {
    Program p = program(Conv2d.Variant.NAIVE, 8);
    try (Arena arena = Arena.ofShared()) {
      List<MemorySegment> buffers = Harness.runOnCpu(p, arena);
      buffers.get(0).setAtIndex(JAVA_DOUBLE, 8 + 3, 0.0);
      Check check = p.check(buffers);
      assertThat(check.mismatches().getFirst()).isEqualTo("in[1][3]: expected " + Conv2d.input(11) + ", got 0.0");
    }
  }

  @Test
  void traffic_n4_oneReadOneWritePerElementAndTwoFlopsPerTap() {
    Traffic t = program(Conv2d.Variant.NAIVE, 4).traffic();
    assertThat(t.bytesRead()).isEqualTo(16 * 8);
    assertThat(t.bytesWritten()).isEqualTo(16 * 8);
    // Taps per axis: 2 + 3 + 3 + 2 = 10, so 100 taps inside the 4 x 4 image.
    assertThat(Conv2d.taps(4)).isEqualTo(100);
    assertThat(t.flops()).isEqualTo(200);
    long counted = 0;
    for (int r = 0; r < 7; r++) {
      for (int c = 0; c < 7; c++) {
        counted += tapsAt(r, c, 7);
      }
    }
    assertThat(Conv2d.taps(7)).isEqualTo(counted);
  }

  private static int tapsAt(int r, int c, int n) {
    int taps = 0;
    for (int dr = -1; dr <= 1; dr++) {
      for (int dc = -1; dc <= 1; dc++) {
        if (r + dr >= 0 && r + dr < n && c + dc >= 0 && c + dc < n) {
          taps++;
        }
      }
    }
    return taps;
  }

  @Test
  void coalescing_naive_thirtyTwoSectorsEveryAccess() {
    List<Coalescing> model = program(Conv2d.Variant.NAIVE, 8192).coalescing();
    assertThat(model).hasSize(10);
    assertThat(model).extracting(Coalescing::sectorsPerRequest).containsOnly(32);
    assertThat(model.getLast().store()).isTrue();
  }

  @Test
  void coalescing_coalesced_eightSectorsCentreNineAcrossASectorEdge() {
    List<Coalescing> model = program(Conv2d.Variant.COALESCED, 8192).coalescing();
    assertThat(model.get(0).access()).isEqualTo("load in[r-1][c-1]");
    assertThat(model).extracting(Coalescing::sectorsPerRequest).containsExactly(9, 8, 9, 9, 8, 9, 9, 8, 9, 8);
    assertThat(model.getLast().efficiency()).isEqualTo(1.0);
  }

  @Test
  void steps_n8192_32By8BlocksCoveringTheImage() {
    Step.Kernel k = (Step.Kernel) program(Conv2d.Variant.NAIVE, 8192).steps().getFirst();
    assertThat(k.grid()).isEqualTo(Dim3.of(256, 1024));
    assertThat(k.block()).isEqualTo(Dim3.of(32, 8));
    assertThat(k.args()).containsExactly(Arg.buf(0), Arg.buf(1), Arg.i32(8192));
    assertThat(((Step.Kernel) program(Conv2d.Variant.COALESCED, 45).steps().getFirst()).grid()).isEqualTo(Dim3.of(2, 6));
  }

  private Conv2d.Case program(Conv2d.Variant variant, long n) {
    return Harness.program(family, variant, n);
  }
}
