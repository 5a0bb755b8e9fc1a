package io.busload.agent.cuda.nvml;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.agent.device.HealthSensor;
import io.busload.protocol.HealthCounters;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The health queries and the XID event set through the FFM binding, against the stand-in NVML built with one fault
 * each (src/test/resources/nvml/fake-nvml.c): clean before {@code fake_nvml_step()}, the fault after, as a fault
 * that appears during a run. A real GPU's counters are read on the lead's GPU runs.
 */
class NvmlHealthTest {
  @TempDir
  Path dir;

  /** The stand-in built with {@code flags}, and a way to make its fault appear. */
  private record Fake(Nvml nvml, Runnable step) {}

  private Fake fake(String... flags) throws IOException, InterruptedException {
    Path library = FakeNvml.build(dir, flags);
    Nvml nvml = Nvml.load(library);
    var step = SymbolLookup.libraryLookup(library, Arena.global()).find("fake_nvml_step")
        .map(s -> Linker.nativeLinker().downcallHandle(s, FunctionDescriptor.ofVoid())).orElse(null);
    return new Fake(nvml, () -> {
      try {
        step.invokeExact();
      } catch (Throwable t) {
        throw new AssertionError(t);
      }
    });
  }

  /** Reads the counters, lets the fault appear, reads them again and polls the XID watch: what a run sees. */
  private record Run(HealthCounters before, HealthCounters after, boolean watching, List<Long> xids) {}

  private Run run(String... flags) throws Exception {
    Fake fake = fake(flags);
    HealthSensor sensor = fake.nvml().healthSensorOf("GPU-fake-0");
    assertThat(sensor.reads()).isTrue();
    HealthCounters before = sensor.read();
    try (HealthSensor.XidWatch watch = sensor.watchXids()) {
      List<Long> xids = new ArrayList<>(watch.poll());
      fake.step().run();
      HealthCounters after = sensor.read();
      xids.addAll(watch.poll());
      return new Run(before, after, watch.watching(), xids);
    }
  }

  /** A clean Hopper: ECC 0 (10 corrected over its life), rows remapped none, pages not retired (NOT_SUPPORTED). */
  private static final HealthCounters CLEAN = new HealthCounters(0L, 0L, 10L, 0L, null, null, null, 0L, 0L, false,
      false, 5L);

  @Test
  void read_cleanGpu_zerosWhereReadAndNullWhereNotSupported() throws Exception {
    Run run = run();

    assertThat(run.before()).isEqualTo(CLEAN);
    assertThat(run.after()).isEqualTo(CLEAN);
    assertThat(run.watching()).isTrue();
    assertThat(run.xids()).isEmpty();
  }

  @Test
  void read_correctedEccDuringRun_volatileAndAggregateGrow() throws Exception {
    Run run = run("-DFAKE_NVML_FAULT=1");

    assertThat(run.before().eccVolatileCorrected()).isZero();
    assertThat(run.after().eccVolatileCorrected()).isEqualTo(4L);
    assertThat(run.after().eccAggregateCorrected()).isEqualTo(14L);
    assertThat(run.after().eccVolatileUncorrected()).isZero();
  }

  @Test
  void read_uncorrectedEccDuringRun_uncorrectedCounted() throws Exception {
    Run run = run("-DFAKE_NVML_FAULT=2");

    assertThat(run.after().eccVolatileUncorrected()).isEqualTo(1L);
    assertThat(run.after().eccAggregateUncorrected()).isEqualTo(1L);
  }

  @Test
  void read_olderGpuWithPendingRetirement_pagesCountedAndRowsNotRead() throws Exception {
    Run run = run("-DFAKE_NVML_FAULT=3");

    assertThat(run.before().retiredPagesDoubleBit()).isZero();
    assertThat(run.before().retiredPagesPending()).isFalse();
    assertThat(run.after().retiredPagesDoubleBit()).isEqualTo(1L);
    assertThat(run.after().retiredPagesSingleBit()).isZero();
    assertThat(run.after().retiredPagesPending()).isTrue();
    assertThat(run.after().remappedRowsCorrectable()).isNull();
    assertThat(run.after().remapPending()).isNull();
  }

  @Test
  void read_pendingRowRemap_pendingAndRowCounted() throws Exception {
    Run run = run("-DFAKE_NVML_FAULT=4");

    assertThat(run.after().remapPending()).isTrue();
    assertThat(run.after().remappedRowsCorrectable()).isEqualTo(1L);
    assertThat(run.after().remapFailure()).isFalse();
  }

  @Test
  void read_failedRowRemap_failureRead() throws Exception {
    Run run = run("-DFAKE_NVML_FAULT=5");

    assertThat(run.after().remapFailure()).isTrue();
    assertThat(run.after().remappedRowsUncorrectable()).isEqualTo(1L);
  }

  @Test
  void read_pcieReplaysDuringRun_counterGrows() throws Exception {
    Run run = run("-DFAKE_NVML_FAULT=6");

    assertThat(run.before().pcieReplays()).isEqualTo(5L);
    assertThat(run.after().pcieReplays()).isEqualTo(17L);
  }

  @Test
  void watchXids_xidDuringRun_polledOnceWithItsNumber() throws Exception {
    Fake fake = fake("-DFAKE_NVML_FAULT=7");
    HealthSensor sensor = fake.nvml().healthSensorOf("GPU-fake-0");

    try (HealthSensor.XidWatch watch = sensor.watchXids()) {
      assertThat(watch.poll()).isEmpty();
      fake.step().run();
      assertThat(watch.poll()).containsExactly(79L);
      assertThat(watch.poll()).isEmpty();
    }
  }

  @Test
  void read_everyQueryNotSupported_allNullNeverZeroAndXidsNotWatched() throws Exception {
    Run run = run("-DFAKE_NVML_FAULT=8");

    assertThat(run.before()).isEqualTo(HealthCounters.NONE);
    assertThat(run.after()).isEqualTo(HealthCounters.NONE);
    assertThat(run.watching()).isFalse();
  }

  @Test
  void read_nvmlWithoutHealthCalls_allNullAndXidsNotWatched() throws Exception {
    Fake fake = fake("-DFAKE_NVML_NO_HEALTH");
    HealthSensor sensor = fake.nvml().healthSensorOf("GPU-fake-0");

    assertThat(sensor.read()).isEqualTo(HealthCounters.NONE);
    try (HealthSensor.XidWatch watch = sensor.watchXids()) {
      assertThat(watch.watching()).isFalse();
    }
  }

  @Test
  void healthSensor_noUuid_readsNothingSayingWhy() {
    assertThat(Nvml.healthSensor(null).reads()).isFalse();
    assertThat(Nvml.healthSensor(null).note()).contains("no CUDA UUID");
  }
}
