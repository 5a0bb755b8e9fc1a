package io.busload.coordinator.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.analysis.health.HealthInputs;
import io.busload.analysis.health.HealthRules;
import io.busload.analysis.health.HealthState;
import io.busload.analysis.health.MemcpyFloor;
import io.busload.coordinator.Fixtures;
import io.busload.kernels.Catalog;
import io.busload.protocol.CacheResidency;
import io.busload.protocol.Clocks;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.Health;
import io.busload.protocol.HealthCounters;
import io.busload.protocol.KernelResult;
import io.busload.protocol.ResultStatus;
import io.busload.protocol.Sampling;
import io.busload.protocol.StopReason;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** One run's results as the inputs of its health verdict: the newest counters, the memcpy, the throttling. */
class HealthWatchTest {
  private static final DeviceInfo GPU = Fixtures.gpu("g", 0);
  private static final HealthCounters CLEAN = new HealthCounters(0L, 0L, 0L, 0L, null, null, null, 0L, 0L, false,
      false, 0L);

  private static KernelResult timed(KernelResult r, long reasons) {
    return r.withSampling(ResultStatus.MEASURED, new Sampling(10, 0, 0, StopReason.SPREAD_SETTLED,
        new Clocks(Clocks.Reading.READ, "NVML", 1980, 1980, 2619, 2619, reasons, 0, false),
        CacheResidency.of(r.bytes(), GPU.l2Bytes(), false)));
  }

  /** A memcpy at {@code fraction} of the 3.35 TB/s peak, then {@code strides} cases, the first {@code hot} at 0x40. */
  private static List<KernelResult> run(double fraction, int strides, int hot) {
    List<KernelResult> run = new ArrayList<>();
    KernelResult memcpy = Fixtures.result("s", "r", "a1", GPU, 1, true, Instant.now());
    memcpy = KernelResult.builder().schemaVersion(memcpy.schemaVersion()).id(memcpy.id()).runId(memcpy.runId())
        .sweepId(memcpy.sweepId()).agentId(memcpy.agentId()).agentVersion(memcpy.agentVersion())
        .fatbinHash(memcpy.fatbinHash()).device(GPU).suite(memcpy.suite()).kernel(Catalog.MEMCPY_D2D.name())
        .params(memcpy.params()).valid(true).mismatches(List.of()).medianSeconds(1e-3).minSeconds(1e-3)
        .maxSeconds(1e-3).relativeSpread(0).samples(List.of(1e-3)).launchesPerSample(1).warmupLaunches(1)
        .bytesRead(memcpy.bytesRead()).bytesWritten(memcpy.bytesWritten()).bytes(memcpy.bytes())
        .bandwidth(fraction * GPU.theoreticalPeakBytesPerSecond()).method("m").measuredAt(memcpy.measuredAt())
        .build();
    run.add(timed(memcpy, 0));
    for (int i = 0; i < strides; i++) {
      run.add(timed(Fixtures.result("s", "r", "a1", GPU, i + 2, true, Instant.now()), i < hot ? 0x40L : 0x1L)
          .withHealth(new Health(CLEAN, CLEAN, List.of(), "NVML")));
    }
    return run;
  }

  @Test
  void inputs_slowMemcpyAndThrottledMostOfTheRun_degradedForBoth() {
    List<KernelResult> run = run(0.60, 4, 4);

    HealthInputs in = HealthWatch.inputs(run.getLast(), run, MemcpyFloor.of(GPU.name(), List.of()));

    assertThat(in.memcpyFraction()).isCloseTo(0.60, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(in.timedCases()).isEqualTo(5);
    assertThat(in.throttledCases()).isEqualTo(4);
    assertThat(in.throttleReasons()).isEqualTo(0x40L);
    assertThat(HealthRules.judge(in).state()).isEqualTo(HealthState.DEGRADED);
    assertThat(HealthRules.judge(in).reasons()).hasSize(2);
  }

  @Test
  void inputs_fastMemcpyIdleBitsOnly_healthy() {
    List<KernelResult> run = run(0.88, 4, 0);

    HealthInputs in = HealthWatch.inputs(run.getLast(), run, MemcpyFloor.of(GPU.name(), List.of()));

    assertThat(in.throttledCases()).isZero();
    assertThat(HealthRules.judge(in).state()).isEqualTo(HealthState.HEALTHY);
  }

  /**
   * A push token vouches for a file, not for a fleet device: a pushed result naming a fleet device's id with failing
   * counters must not judge that device (nor tell anyone it FAILED). The store is not even asked.
   */
  @Test
  void check_pushedResultWithFailingHealth_judgesNothing() throws Exception {
    io.vertx.core.Vertx vertx = io.vertx.core.Vertx.vertx();
    try {
      HealthCounters uncorrected = new HealthCounters(0L, 3L, 0L, 3L, null, null, null, 0L, 0L, false, true, 0L);
      KernelResult pushed = Fixtures.result("s", "r", null, GPU, 2, true, Instant.now())
          .withHealth(new Health(CLEAN, uncorrected, List.of(79L), "NVML"))
          .withOrigin(new io.busload.protocol.Origin(io.busload.protocol.Origin.PUSHED, "push-1", "ci",
              "laptop", "results.json", null, Instant.now()));

      List<io.busload.coordinator.store.HealthStore.Stored> judged = new HealthWatch(vertx, null,
          java.time.Clock.systemUTC()).check(List.of(pushed)).await(10, java.util.concurrent.TimeUnit.SECONDS);

      assertThat(judged).isEmpty();
    } finally {
      vertx.close().await(10, java.util.concurrent.TimeUnit.SECONDS);
    }
  }
}
