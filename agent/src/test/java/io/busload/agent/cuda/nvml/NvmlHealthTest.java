package io.busload.agent.cuda.nvml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Named.named;
import static org.junit.jupiter.params.provider.Arguments.arguments;

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
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

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

  /** An older GPU (Volta): pages retired, none yet, and no row remapping. */
  private static final HealthCounters OLDER = new HealthCounters(0L, 0L, 10L, 0L, 0L, 0L, false, null, null, null,
      null, 5L);

  /**
   * Each fault of the stand-in, the counters before it and after it, whole: corrected ECC errors grow the volatile
   * and the aggregate count; an uncorrected one both uncorrected counts; an older GPU's pending double-bit retirement
   * counts a page, with rows not read; a pending row remap, a failed one, and PCIe replays count theirs.
   */
  static Stream<Arguments> faults() {
    return Stream.of(
        arguments(named("corrected ECC", 1), CLEAN,
            new HealthCounters(4L, 0L, 14L, 0L, null, null, null, 0L, 0L, false, false, 5L)),
        arguments(named("uncorrected ECC", 2), CLEAN,
            new HealthCounters(0L, 1L, 10L, 1L, null, null, null, 0L, 0L, false, false, 5L)),
        arguments(named("older GPU, retirement pending", 3), OLDER,
            new HealthCounters(0L, 0L, 10L, 0L, 0L, 1L, true, null, null, null, null, 5L)),
        arguments(named("row remap pending", 4), CLEAN,
            new HealthCounters(0L, 0L, 10L, 0L, null, null, null, 1L, 0L, true, false, 5L)),
        arguments(named("row remap failed", 5), CLEAN,
            new HealthCounters(0L, 0L, 10L, 0L, null, null, null, 0L, 1L, false, true, 5L)),
        arguments(named("PCIe replays", 6), CLEAN,
            new HealthCounters(0L, 0L, 10L, 0L, null, null, null, 0L, 0L, false, false, 17L)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("faults")
  void read_faultDuringRun_countedAfterItAndNotBefore(int fault, HealthCounters before, HealthCounters after)
      throws Exception {
    Run run = run("-DFAKE_NVML_FAULT=" + fault);

    assertThat(run.before()).isEqualTo(before);
    assertThat(run.after()).isEqualTo(after);
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
