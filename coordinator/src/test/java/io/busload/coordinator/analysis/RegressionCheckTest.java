package io.busload.coordinator.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.coordinator.Fixtures;
import io.busload.coordinator.store.ComparisonStore.Change;
import io.busload.coordinator.store.ComparisonStore.HistoryPoint;
import io.busload.protocol.CacheResidency;
import io.busload.protocol.Clocks;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.KernelResult;
import io.busload.protocol.ResultStatus;
import io.busload.protocol.Sampling;
import io.busload.protocol.StopReason;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class RegressionCheckTest {
  private static final DeviceInfo GPU = Fixtures.gpu("rc", 0);
  private static final Instant NOW = Instant.parse("2026-11-01T12:00:00Z");

  /** Ten results around 1.000e12 B/s, spread 0.2%, newest first, on driver 13.0 and fatbin-abc. */
  private static List<HistoryPoint> stableHistory() {
    double[] values = {1.000e12, 1.001e12, 0.999e12, 1.002e12, 0.998e12, 1.000e12, 1.001e12, 0.999e12, 1.000e12, 1.000e12};
    List<HistoryPoint> history = new ArrayList<>();
    for (int i = 0; i < values.length; i++) {
      history.add(new HistoryPoint(UUID.randomUUID(), NOW.minusSeconds(3600L * (i + 1)), values[i], "13.0", "0.1.0",
          "fatbin-abc", "warm-up 5 launches; 20 samples"));
    }
    return history;
  }

  private static KernelResult withBandwidth(double bandwidth, String driver, String method) {
    KernelResult r = Fixtures.result("s", "r", "a", new DeviceInfo(GPU.id(), GPU.kind(), GPU.name(), GPU.uuid(),
        GPU.computeCapability(), GPU.multiprocessors(), GPU.l2Bytes(), GPU.memoryBytes(), GPU.memoryClockHz(),
        GPU.busWidthBits(), GPU.theoreticalPeakBytesPerSecond(), driver), 4, true, NOW);
    return KernelResult.builder().schemaVersion(r.schemaVersion()).id(r.id()).runId(r.runId()).sweepId(r.sweepId())
        .agentId(r.agentId()).agentVersion(r.agentVersion()).fatbinHash(r.fatbinHash()).device(r.device())
        .suite(r.suite()).kernel(r.kernel()).params(r.params()).valid(true).mismatches(List.of())
        .medianSeconds(r.medianSeconds()).minSeconds(r.minSeconds()).maxSeconds(r.maxSeconds())
        .relativeSpread(r.relativeSpread()).samples(r.samples()).launchesPerSample(r.launchesPerSample())
        .warmupLaunches(r.warmupLaunches()).bytesRead(r.bytesRead()).bytesWritten(r.bytesWritten()).bytes(r.bytes())
        .bandwidth(bandwidth).method(method).measuredAt(r.measuredAt()).build();
  }

  @Test
  void check_fivePercentDropOnNewDriver_isRegressionWithDriverInDiff() {
    KernelResult result = withBandwidth(0.95e12, "13.1", "warm-up 5 launches; 20 samples; SM 1755 MHz");

    Change change = RegressionCheck.check(result, stableHistory(), NOW).orElseThrow();

    assertThat(change.kind()).isEqualTo(Change.Kind.REGRESSION);
    assertThat(change.baselineMedian()).isEqualTo(1.000e12);
    assertThat(change.changeFraction()).isCloseTo(-0.05, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(change.historyCount()).isEqualTo(10);
    assertThat(change.robustZ()).isLessThan(-3.5);
    assertThat(change.environmentDiff()).containsOnlyKeys("driverVersion", "clocks");
    assertThat(change.environmentDiff().get("driverVersion")).isEqualTo(Map.of("before", "13.0", "after", "13.1"));
    assertThat(change.environmentDiff().get("clocks").get("after")).isEqualTo("1755 MHz");
  }

  @Test
  void check_withinNoiseBand_recordsNothing() {
    assertThat(RegressionCheck.check(withBandwidth(1.003e12, "13.0", "x"), stableHistory(), NOW)).isEmpty();
  }

  @Test
  void check_threePercentRise_isImprovement() {
    Change change = RegressionCheck.check(withBandwidth(1.03e12, "13.0", "x"), stableHistory(), NOW).orElseThrow();

    assertThat(change.kind()).isEqualTo(Change.Kind.IMPROVEMENT);
    assertThat(change.environmentDiff()).isEmpty();
  }

  @Test
  void check_historyShorterThanFive_recordsNothing() {
    assertThat(RegressionCheck.check(withBandwidth(0.5e12, "13.0", "x"), stableHistory().subList(0, 4), NOW)).isEmpty();
  }

  @Test
  void check_oneWildOutlierInHistory_doesNotWidenTheBand() {
    List<HistoryPoint> history = new ArrayList<>(stableHistory());
    HistoryPoint first = history.getFirst();
    history.set(0, new HistoryPoint(first.resultId(), first.measuredAt(), 0.2e12, "13.0", "0.1.0", "fatbin-abc", "x"));

    assertThat(RegressionCheck.check(withBandwidth(0.97e12, "13.0", "x"), history, NOW))
        .hasValueSatisfying(c -> assertThat(c.kind()).isEqualTo(Change.Kind.REGRESSION));
  }

  /** {@link #stableHistory} as results stored with typed clocks and a sentence that says otherwise. */
  private static List<HistoryPoint> typedHistory(Clocks clocks, String method) {
    List<HistoryPoint> history = new ArrayList<>();
    for (HistoryPoint p : stableHistory()) {
      history.add(new HistoryPoint(p.resultId(), p.measuredAt(), p.bandwidth(), p.driverVersion(), p.agentVersion(),
          p.fatbinHash(), method, p.origin(), clocks));
    }
    return history;
  }

  private static KernelResult typed(double bandwidth, String method, Clocks clocks) {
    return withBandwidth(bandwidth, "13.0", method).withSampling(ResultStatus.MEASURED, new Sampling(20, 0, 0,
        StopReason.SPREAD_SETTLED, clocks, CacheResidency.of(8L << 20, GPU.l2Bytes(), false)));
  }

  private static Clocks read(int smMin, int smMax) {
    return new Clocks(Clocks.Reading.READ, "NVML 12.580.82", smMin, smMax, 2619, 2619, 0L, 0, false);
  }

  @Test
  void check_typedClocksDifferThoughSentencesAgree_diffNamesTheTypedClocks() {
    String same = "GPU before: sm 1980 MHz, mem 2619 MHz";

    Change change = RegressionCheck.check(typed(0.95e12, same, read(1755, 1755)),
        typedHistory(read(1980, 1980), same), NOW).orElseThrow();

    assertThat(change.environmentDiff()).containsOnlyKeys("clocks");
    assertThat(change.environmentDiff().get("clocks"))
        .isEqualTo(Map.of("before", "sm 1980 MHz, mem 2619 MHz", "after", "sm 1755 MHz, mem 2619 MHz"));
  }

  @Test
  void check_typedClocksAgreeThoughSentencesDiffer_noClockChange() {
    // Boost moving a bin (1965 vs 1980, under 1%) is the same clock; the sentences' 1410 MHz is not what was read.
    Change change = RegressionCheck.check(typed(0.95e12, "GPU before: sm 1410 MHz, mem 2619 MHz", read(1965, 1980)),
        typedHistory(read(1980, 1980), "GPU before: sm 1980 MHz, mem 2619 MHz"), NOW).orElseThrow();

    assertThat(change.environmentDiff()).isEmpty();
  }

  @Test
  void check_clocksNotReadOrUnavailable_noClockChangeAgainstReadHistory() {
    for (Clocks unread : new Clocks[] {Clocks.notRead("no libnvidia-ml.so.1"), Clocks.unavailable("a CPU")}) {
      Change change = RegressionCheck.check(typed(0.95e12, "GPU before: sm 1410 MHz, mem 2619 MHz", unread),
          typedHistory(read(1980, 1980), "GPU before: sm 1980 MHz, mem 2619 MHz"), NOW).orElseThrow();
      assertThat(change.environmentDiff()).as(unread.reading().name()).isEmpty();

      Change back = RegressionCheck.check(typed(0.95e12, "x", read(1980, 1980)),
          typedHistory(unread, "GPU before: sm 1410 MHz"), NOW).orElseThrow();
      assertThat(back.environmentDiff()).as("read against " + unread.reading()).isEmpty();
    }
  }

  @Test
  void check_historyWithoutTypedClocks_itsSentenceAgainstTheTypedClocks() {
    // The newest point has no typed clocks (its agent reported only the method sentence): its sentence is read.
    Change change = RegressionCheck.check(typed(0.95e12, "GPU before: sm 1980 MHz", read(1755, 1755)),
        stableHistory().stream().map(p -> new HistoryPoint(p.resultId(), p.measuredAt(), p.bandwidth(),
            p.driverVersion(), p.agentVersion(), p.fatbinHash(), "GPU before: sm 1980 MHz, mem 2619 MHz; after: sm "
            + "1980 MHz, mem 2619 MHz")).toList(), NOW).orElseThrow();

    assertThat(change.environmentDiff().get("clocks")).isEqualTo(Map.of("before",
        "1980 MHz, 2619 MHz, 1980 MHz, 2619 MHz", "after", "sm 1755 MHz, mem 2619 MHz"));
  }
}
