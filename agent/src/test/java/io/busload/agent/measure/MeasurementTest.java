package io.busload.agent.measure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.busload.agent.device.ClockSensor;
import io.busload.agent.device.Workload;
import io.busload.agent.report.TablePrinter;
import io.busload.kernels.SuiteOptions;
import io.busload.protocol.CacheResidency;
import io.busload.protocol.Clocks;
import io.busload.protocol.KernelResult;
import io.busload.protocol.ResultStatus;
import io.busload.protocol.StopReason;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link Measurement} against a device whose timings, holds and clocks are scripted. The kernels
 * really run once on the CPU backend, so their checks are the real ones.
 */
class MeasurementTest {
  private static final long SMALL_L2 = 64L << 10;
  private static final RunContext CONTEXT = new RunContext("run-1", "sweep-1", "agent-1", "test");
  /** Stops when the last 3 samples agree within 0.5%, at 5 samples, or at once past 3 samples (time cap 0). */
  private static final StoppingRule SHORT = new StoppingRule(3, 3, 0.005, 1000, 5);
  private static final StoppingRule CAPPED_AT_ONCE = new StoppingRule(10, 10, 0.005, 0, 1000);

  private final FakeDevice device = new FakeDevice(SMALL_L2);

  @AfterEach
  void close() {
    device.close();
  }

  private static Plan plan(long l2Bytes, Map<String, String> options) {
    return Plan.resolve("stride", SuiteOptions.parse(options), new FakeDevice(l2Bytes).limits(), "cuda:0");
  }

  private static Plan.Planned firstCase() {
    return plan(SMALL_L2, Map.of("size", "65536", "stride", "1")).cases().getFirst();
  }

  private KernelResult measure(StoppingRule rule) {
    return new Measurement(device, CONTEXT, "fatbin", rule).measure("stride", firstCase());
  }

  /** Every other timed sample twice as slow: the spread never settles. */
  private static Workload.Batch noisy(int call, int launches) {
    return new Workload.Batch(launches * (call % 2 == 0 ? 1e-4 : 2e-4), Workload.Hold.HELD);
  }

  @Test
  void calibrate_slowFirstLaunches_resizesUntilOneBatchLastsTheTarget() {
    // probe 1 ms -> 10 warm-up launches; their 0.5 ms average -> batches of 2; a batch of 2 at 0.1 ms is short
    // -> batches of 10, which last the 1 ms target.
    device.script = (call, launches) -> new Workload.Batch(launches * switch (call) {
      case 1 -> 1e-3;
      case 2 -> 5e-4;
      default -> 1e-4;
    }, Workload.Hold.HELD);

    KernelResult r = measure(StoppingRule.standard(1000));

    assertThat(device.launchesPerCall.subList(0, 5)).containsExactly(1, 1, 10, 2, 10);
    assertThat(r.warmupLaunches()).isEqualTo(1 + 1 + 10 + 2 + 10);
    assertThat(r.launchesPerSample()).isEqualTo(10);
    assertThat(r.status()).isEqualTo(ResultStatus.MEASURED);
    assertThat(r.medianSeconds()).isEqualTo(1e-4);
    assertThat(r.bandwidth()).isEqualTo(r.bytes() / 1e-4);
  }

  @Test
  void calibrate_tinyLaunches_keepsEverySampleToWhatCanBeHeld() {
    // 1 us a launch wants 1,000 launches a sample for the 1 ms target; only 512 can be held: samples of 512 launches,
    // each held (unheld, the host's enqueue rate would have set the time of a 4 KiB copy).
    device.heldLaunchLimit = 512;
    device.script = (call, launches) -> new Workload.Batch(launches * 1e-6,
        launches <= 512 ? Workload.Hold.HELD : Workload.Hold.UNHELD);

    KernelResult r = measure(StoppingRule.standard(1000));

    assertThat(r.launchesPerSample()).isEqualTo(512);
    assertThat(device.launchesPerCall.subList(3, device.launchesPerCall.size())).containsOnly(512);
    assertThat(r.sampling().heldSamples()).isEqualTo(r.samples().size());
    assertThat(r.sampling().unheldSamples()).isZero();
    assertThat(r.medianSeconds()).isEqualTo(1e-6);
  }

  /**
   * Steady samples stop when the spread settles; noisy ones at the sample cap (with a warning on the spread), or at
   * the time cap where it comes first. Each: noisy or not, the rule, why it stops, after how many samples, and what
   * the method says.
   */
  static Stream<Arguments> stops() {
    return Stream.of(
        arguments(false, StoppingRule.standard(1000), StopReason.SPREAD_SETTLED, 10,
            List.of("stopped at spread of the last 10 under 0.5%")),
        arguments(true, SHORT, StopReason.SAMPLE_CAP, 5, List.of("stopped at sample cap 5", "WARNING: spread")),
        arguments(true, CAPPED_AT_ONCE, StopReason.TIME_CAP, 3, List.of("stopped at time cap 0 s")));
  }

  @ParameterizedTest(name = "noisy {0}: {2}")
  @MethodSource("stops")
  void sample_noisyOrSteadySamples_stopForTheRulesFirstReason(boolean noisy, StoppingRule rule, StopReason reason,
      int samples, List<String> method) {
    if (noisy) {
      device.script = MeasurementTest::noisy;
    }

    KernelResult r = measure(rule);

    assertThat(r.sampling().stopReason()).isEqualTo(reason);
    assertThat(r.samples()).hasSize(samples);
    assertThat(r.method()).contains(method);
  }

  @Test
  void measure_outputCheckFails_invalidWithoutBandwidthOrTiming() {
    device.computes = false; // the output keeps its 0xFF poison

    KernelResult r = measure(SHORT);

    assertThat(r.status()).isEqualTo(ResultStatus.CHECK_FAILED);
    assertThat(r.valid()).isFalse();
    assertThat(r.bandwidth()).isNull();
    assertThat(r.samples()).isEmpty();
    assertThat(r.sampling()).isNull();
    assertThat(r.mismatches().getLast()).matches("\\d+ of \\d+ elements differ");
    assertThat(device.launchesPerCall).containsExactly(1); // nothing timed after the failed check
  }

  @Test
  void measure_timedApartFromHost_wrongFirstLaunch_checkFailedAndTheSamplesTakenBesideDiscarded() {
    device.timesApart = true;
    device.computes = false;

    KernelResult r = measure(StoppingRule.standard(1000));

    assertThat(r.status()).isEqualTo(ResultStatus.CHECK_FAILED);
    assertThat(r.bandwidth()).isNull();
    assertThat(r.samples()).isEmpty();
    assertThat(r.mismatches().getLast()).matches("\\d+ of \\d+ elements differ");
    assertThat(device.launchesPerCall).as("warm-up and samples ran while the output was checked").hasSizeGreaterThan(3);
  }

  @Test
  void measure_timedApartFromHost_deviceFailsWhileTheCheckRuns_deviceFailedAndTheRunGoesOn() {
    device.timesApart = true;
    device.failAtCall = 2;

    KernelResult r = measure(StoppingRule.standard(1000));

    assertThat(r.status()).isEqualTo(ResultStatus.DEVICE_FAILED);
    assertThat(r.mismatches()).first().asString().contains("CUDA_ERROR_ILLEGAL_ADDRESS");
    device.failAtCall = -1;
    assertThat(measure(StoppingRule.standard(1000)).valid()).as("the next case").isTrue();
  }

  @Test
  void measure_secondCopyKept_sameOutputAfterTimedLaunches_validWithoutDownloadingIntoTheCheckedCopy() {
    device.timesApart = true;
    device.keepsApart = true;

    KernelResult r = measure(StoppingRule.standard(1000));

    assertThat(r.valid()).isTrue();
    assertThat(device.reads).containsExactly("download", "downloadApart");
  }

  @Test
  void measure_secondCopyKept_outputChangedAfterTimedLaunches_checkFailedAfterThem() {
    device.keepsApart = true;
    device.wrongAfterFirstLaunch = true;

    KernelResult r = measure(StoppingRule.standard(1000));

    assertThat(r.status()).isEqualTo(ResultStatus.CHECK_FAILED);
    assertThat(r.mismatches().getFirst()).startsWith("after ").contains("launches: out[0]");
    assertThat(r.mismatches().getLast()).endsWith("(the first launch's output passed)");
  }

  @Test
  void measure_deviceCallFailsWhileSampling_invalidWithoutBandwidth() {
    device.failAtCall = 6;

    KernelResult r = measure(StoppingRule.standard(1000));

    assertThat(r.status()).isEqualTo(ResultStatus.DEVICE_FAILED);
    assertThat(r.bandwidth()).isNull();
    assertThat(r.mismatches()).first().asString().contains("CUDA_ERROR_ILLEGAL_ADDRESS");
    assertThat(r.mismatches()).contains("context reset (scripted)");
  }

  @Test
  void sample_throttledReadings_droppedCountedAndLeftOutOfTheMedian() {
    // Readings 2 and 4 throttle (sw power cap) and those samples ran slow; every other one is clean and fast.
    device.script = (call, launches) -> new Workload.Batch(launches * 1e-4, Workload.Hold.HELD);
    device.sensor = FakeDevice.readings(n -> new ClockSensor.Reading(n == 1 || n == 3 ? 1400 : 1980, 2619,
        n == 1 || n == 3 ? 0x4 : 0x0));

    KernelResult r = measure(StoppingRule.standard(1000));

    Clocks clocks = r.sampling().clocks();
    assertThat(clocks.reading()).isEqualTo(Clocks.Reading.READ);
    assertThat(clocks.throttledSamplesDropped()).isEqualTo(2);
    assertThat(clocks.throttleReasons()).isEqualTo(0x4L);
    assertThat(clocks.smMinMHz()).isEqualTo(1400);
    assertThat(clocks.smMaxMHz()).isEqualTo(1980);
    assertThat(clocks.tooFewCleanSamples()).isFalse();
    assertThat(r.samples()).hasSize(10);
    assertThat(r.sampling().timedSamples()).isEqualTo(12);
    assertThat(r.method()).contains("throttle reasons 0x4 (sw power cap), 2 samples dropped while throttled");
  }

  @Test
  void sample_throttledThroughout_flaggedTooFewCleanAndStopsAtTheCap() {
    device.sensor = FakeDevice.readings(n -> new ClockSensor.Reading(1200, 2619, 0x40));

    KernelResult r = measure(CAPPED_AT_ONCE);

    assertThat(r.sampling().stopReason()).isEqualTo(StopReason.TIME_CAP);
    assertThat(r.sampling().clocks().throttledSamplesDropped()).isEqualTo(3);
    assertThat(r.sampling().clocks().tooFewCleanSamples()).isTrue();
    assertThat(r.samples()).hasSize(3); // no clean sample: the figures stand on every one, and say so
    assertThat(r.method()).contains("WARNING: too few clean samples left");
  }

  @Test
  void sample_noNvml_clocksNotReadTypedWithoutFigures() {
    KernelResult r = measure(SHORT);

    Clocks clocks = r.sampling().clocks();
    assertThat(clocks.reading()).isEqualTo(Clocks.Reading.NOT_READ);
    assertThat(clocks.note()).isEqualTo("no libnvidia-ml.so.1 in this test");
    assertThat(clocks.smMinMHz()).isNull();
    assertThat(clocks.throttleReasons()).isNull();
    assertThat(r.method()).contains("clocks: not read (no libnvidia-ml.so.1 in this test)");
  }

  @Test
  void measure_noEnergyCounter_energyAbsentAndMethodSaysNotRead() {
    KernelResult r = measure(SHORT);

    assertThat(r.valid()).isTrue();
    assertThat(r.energy()).isNull();
    assertThat(r.method()).endsWith("; energy: not read (no libnvidia-ml.so.1 in this test)");
  }

  @Test
  void measure_energyCounterMoving_energyWindowAfterTheSamplesWithItsLaunches() {
    long[] millijoules = {1_000_000};
    // A step on every read: the window closes on the first read past its target.
    device.energy = new FakeEnergy("fake counter", () -> millijoules[0] += 5, () -> 80_000);
    int[] timedBatches = {0};
    device.script = (call, launches) -> {
      timedBatches[0] = call;
      return new Workload.Batch(launches * 1e-4, Workload.Hold.HELD);
    };

    KernelResult r = new Measurement(device, CONTEXT, "fatbin", SHORT).energyWindow(0.01).measure("stride",
        firstCase());

    assertThat(r.valid()).isTrue();
    assertThat(r.energy()).isNotNull();
    assertThat(r.energy().idleWatts()).isEqualTo(80.0);
    assertThat(r.energy().windowSeconds()).isGreaterThanOrEqualTo(0.01);
    assertThat(r.energy().joules()).isCloseTo(r.energy().counterSteps() * 0.005, within(1e-12));
    assertThat(r.energy().launches()).isEqualTo((long) r.energy().counterSteps() * r.launchesPerSample());
    // The window's batches come after the samples: the samples and their count are the sampler's alone.
    assertThat(timedBatches[0]).isGreaterThan(r.samples().size() + 2);
    assertThat(r.method()).contains("energy (fake counter, total-energy counter): ")
        .contains(r.energy().launches() + " launches after the samples").contains("80.0 W idle before the first launch");
  }

  @Test
  void measure_energyWindowOff_noEnergyAndNoExtraLaunches() {
    LongSupplier unread = () -> {
      throw new AssertionError("read with the window off");
    };
    device.energy = new FakeEnergy("fake counter", unread, unread);

    KernelResult r = new Measurement(device, CONTEXT, "fatbin", SHORT).energyWindow(0).measure("stride",
        firstCase());

    assertThat(r.valid()).isTrue();
    assertThat(r.energy()).isNull();
    assertThat(r.method()).endsWith("; energy: not read (energy window off)");
  }

  @Test
  void sample_sensorFailsMidway_notReadAndNoSampleStaysDropped() {
    device.sensor = FakeDevice.readings(n -> {
      if (n >= 2) {
        throw new io.busload.agent.device.DeviceException("nvmlDeviceGetClockInfo failed: GPU is lost (15)");
      }
      return new ClockSensor.Reading(1980, 2619, n == 0 ? 0x4 : 0);
    });

    KernelResult r = measure(StoppingRule.standard(1000));

    assertThat(r.sampling().clocks().reading()).isEqualTo(Clocks.Reading.NOT_READ);
    assertThat(r.sampling().clocks().note()).contains("reading failed after 2 readings").contains("GPU is lost");
    assertThat(r.sampling().clocks().throttledSamplesDropped()).isZero();
    assertThat(r.samples()).hasSize(r.sampling().timedSamples());
  }

  @Test
  void sample_heldBatchTimesOut_countedAsRetimed() {
    // The 2nd and 5th samples' holds timed out (the host was slow to queue): timed again without the hold.
    int firstSample = 5; // check, probe, warm-up, one calibration batch that lasts the target
    device.script = (call, launches) -> new Workload.Batch(launches * 1e-4,
        call == firstSample + 1 || call == firstSample + 4 ? Workload.Hold.RETIMED : Workload.Hold.HELD);

    KernelResult r = measure(StoppingRule.standard(1000));

    assertThat(r.sampling().retimedSamples()).isEqualTo(2);
    assertThat(r.sampling().heldSamples()).isEqualTo(8);
    assertThat(r.sampling().unheldSamples()).isZero();
    assertThat(r.method()).contains("8 held, 0 unheld, 2 re-timed without the hold after it timed out");
  }

  @Test
  void sample_batchesTooLargeToHold_countedAsUnheld() {
    device.script = (call, launches) -> new Workload.Batch(launches * 1e-4, Workload.Hold.UNHELD);

    KernelResult r = measure(StoppingRule.standard(1000));

    assertThat(r.sampling().unheldSamples()).isEqualTo(10);
    assertThat(r.sampling().heldSamples()).isZero();
  }

  /** A health sensor whose corrected ECC count grows by one each read and whose XID watch gives 79 once. */
  private static final class GrowingHealth implements io.busload.agent.device.HealthSensor {
    long reads;
    boolean closed;
    int polls;

    @Override
    public boolean reads() {
      return true;
    }

    @Override
    public String note() {
      return "scripted NVML";
    }

    @Override
    public io.busload.protocol.HealthCounters read() {
      return new io.busload.protocol.HealthCounters(reads++, 0L, null, null, null, null, null, null, null, null, null,
          null);
    }

    @Override
    public XidWatch watchXids() {
      return new XidWatch() {
        @Override
        public boolean watching() {
          return true;
        }

        @Override
        public List<Long> poll() {
          return ++polls == 2 ? List.of(79L) : List.of();
        }

        @Override
        public void close() {
          closed = true;
        }
      };
    }
  }

  @Test
  void run_healthSensorReads_eachResultCarriesRunStartCountersItsOwnAndXidsSoFar() {
    Plan plan = plan(SMALL_L2, Map.of("size", "65536", "stride", "1,2")); // memcpy-d2d, then two strides
    GrowingHealth health = new GrowingHealth();
    device.health = health;

    List<KernelResult> results = new Measurement(device, CONTEXT, "fatbin", SHORT).run(plan, Progress.NONE);

    assertThat(results).hasSize(3);
    assertThat(results).allSatisfy(r -> assertThat(r.health().atRunStart().eccVolatileCorrected()).isZero());
    assertThat(results.stream().map(r -> r.health().afterCase().eccVolatileCorrected()).toList())
        .containsExactly(1L, 2L, 3L);
    assertThat(results.stream().map(r -> r.health().xids()).toList())
        .containsExactly(List.of(), List.of(79L), List.of(79L));
    assertThat(results.getFirst().health().note()).isEqualTo("scripted NVML");
    assertThat(health.closed).isTrue();
  }

  @Test
  void run_noHealthSensor_resultsCarryNoHealth() {
    Plan plan = plan(SMALL_L2, Map.of("size", "65536", "stride", "1"));

    List<KernelResult> results = new Measurement(device, CONTEXT, "fatbin", SHORT).run(plan, Progress.NONE);

    assertThat(results).allSatisfy(r -> assertThat(r.health()).isNull());
  }

  @Test
  void run_deviceLostAndRecoveryFails_restAreDeviceFailuresNamingTheLoss() {
    Plan plan = plan(SMALL_L2, Map.of("size", "65536", "stride", "1,2,4")); // memcpy-d2d, then three strides
    device.failAtCall = 0;
    device.recoveryFails = true;

    List<KernelResult> results = new Measurement(device, CONTEXT, "fatbin", SHORT).run(plan, Progress.NONE);

    assertThat(results).hasSize(4);
    assertThat(results).allSatisfy(r -> {
      assertThat(r.status()).isEqualTo(ResultStatus.DEVICE_FAILED);
      assertThat(r.bandwidth()).isNull();
    });
    assertThat(results.getFirst().mismatches()).anyMatch(m -> m.startsWith("recovering the device failed too"));
    assertThat(results.get(1).mismatches()).first().asString().contains("was lost in this process");
    assertThat(device.launchesPerCall).hasSize(1); // nothing else ran on the lost device
  }

  @Test
  void run_deviceLost_restComeFromTheContinuation() {
    Plan plan = plan(SMALL_L2, Map.of("size", "65536", "stride", "1,2,4"));
    List<KernelResult> fromFresh = List.of(measure(SHORT), measure(SHORT), measure(SHORT));
    device.failAtCall = 0;
    device.recoveryFails = true;

    List<KernelResult> results = new Measurement(device, CONTEXT, "fatbin", SHORT).run(plan, Progress.NONE,
        fromCase -> fromCase == 1 ? fromFresh : List.of());

    assertThat(results.getFirst().status()).isEqualTo(ResultStatus.DEVICE_FAILED);
    assertThat(results.subList(1, 4)).isEqualTo(fromFresh);
  }

  @Test
  void plan_workingSetUnderFourL2s_flaggedCacheResidentAndPrinted() {
    Plan plan = plan(1L << 30, Map.of("size", "65536", "stride", "1"));
    Plan.Planned planned = plan.cases().getFirst();
    FakeDevice bigL2 = new FakeDevice(1L << 30);
    try {
      KernelResult r = new Measurement(bigL2, CONTEXT, "fatbin", SHORT).measure("stride", planned);

      CacheResidency cache = r.sampling().cache();
      assertThat(cache.residency()).isEqualTo(CacheResidency.Residency.CACHE_RESIDENT);
      assertThat(cache.workingSetBytes()).isEqualTo(planned.program().deviceBytes());
      assertThat(cache.l2Bytes()).isEqualTo(1L << 30);
      assertThat(r.method()).contains("WARNING: cache-resident");
      StringWriter table = new StringWriter();
      new TablePrinter().print(List.of(r), new PrintWriter(table));
      assertThat(table.toString()).contains("WARNING: cache-resident, working set 512.0 KiB under 4 x L2 (1.0 GiB)");
    } finally {
      bigL2.close();
    }
  }

  @Test
  void plan_cacheStudyAskedFor_labelledAStudy() {
    Plan.Planned planned = plan(1L << 30, Map.of("size", "65536", "stride", "1", "cache-study", "true")).cases()
        .getFirst();

    assertThat(planned.cache().residency()).isEqualTo(CacheResidency.Residency.CACHE_STUDY);
  }

  @Test
  void plan_workingSetAboveFourL2s_notFlagged() {
    Plan.Planned planned = plan(SMALL_L2, Map.of("size", "65536", "stride", "1")).cases().getFirst();

    assertThat(planned.program().deviceBytes()).isGreaterThanOrEqualTo(4 * SMALL_L2);
    assertThat(planned.cache().residency()).isEqualTo(CacheResidency.Residency.ABOVE_L2);
  }

  /**
   * Every default case of the coalescing suite touches at least four L2s of an H100 (50 MiB) and an H200 (60 MiB)
   * except matmul: 3 x 4096^2 fp32 = 192 MiB, whose tiles are meant to be reused from cache. Those results are
   * flagged, which is the truth; a larger default matrix would lift them above the line.
   */
  @Test
  void plan_coalescingDefaultsOnH100AndH200_onlyMatmulUnderFourL2s() {
    for (long l2 : new long[] {50L << 20, 60L << 20}) {
      var limits = new io.busload.kernels.DeviceLimits(io.busload.kernels.DeviceLimits.CUDA, 80L << 30, 79L << 30,
          l2, 132);
      Plan plan = Plan.resolve("coalescing", SuiteOptions.DEFAULTS, limits, "cuda:0");
      assertThat(plan.cases()).filteredOn(p -> p.cache() != null && p.cache().underL2())
          .as("cases under 4 x L2 of %d MiB", l2 >> 20)
          .extracting(p -> p.kernelCase().spec().name() + " " + p.cache().workingSetBytes())
          .containsExactly("matmul-naive 201326592", "matmul-coalesced 201326592", "matmul-row-per-thread 201326592",
              "matmul-col-per-thread 201326592", "matmul-cublas 201326592");
    }
  }

  /**
   * A run beside runs on other devices of the agent says so per result. The other device goes busy after
   * the first case and idle after the second; the third case was sampled with the host to itself again.
   */
  @Test
  void run_anotherDeviceBusyDuringSomeCases_thoseResultsNameIt() {
    Plan plan = plan(SMALL_L2, Map.of("size", "65536", "stride", "1,2")); // memcpy-d2d, then two strides
    io.busload.agent.device.HostActivity host = new io.busload.agent.device.HostActivity();
    io.busload.agent.device.HostActivity.Busy[] other = new io.busload.agent.device.HostActivity.Busy[1];

    List<KernelResult> results = new Measurement(device, CONTEXT, "fatbin", SHORT).sharing(host).run(plan,
        new Progress() {
          @Override
          public void measured(KernelResult result, int completed, int total) {
            if (completed == 1) {
              other[0] = host.busy("fake/cuda:1");
              assertThat(host.window("fake/cuda:1").othersBusy()).as("this device busy during its run")
                  .containsExactly("fake/cuda:0");
            } else if (completed == 2) {
              other[0].close();
            }
          }
        });

    assertThat(results).extracting(r -> r.sampling().othersBusy())
        .containsExactly(List.of(), List.of("fake/cuda:1"), List.of());
    assertThat(results.get(1).method()).contains("measured while fake/cuda:1 measured too");
    assertThat(results.get(2).method()).doesNotContain("measured too");
    assertThat(host.window("fake/cuda:1").othersBusy()).as("idle once its run ended").isEmpty();
  }
}
