package io.busload.analysis.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.analysis.health.HealthReason.Kind;
import java.util.List;
import org.junit.jupiter.api.Test;

class HealthRulesTest {
  /** A clean Hopper: ECC on, rows remapped none, no retirement (NOT_SUPPORTED there), no replays. */
  private static final HealthCounts CLEAN = new HealthCounts(0L, 0L, 0L, 0L, null, null, null, 0L, 0L, false, false,
      0L);
  private static final MemcpyFloor FLOOR = new MemcpyFloor(0.78, "test floor", false);

  private static HealthCounts with(Long corrected, Long uncorrected, Long aggregateUncorrected, Long rows,
      Boolean pending, Boolean failure, Long replays) {
    return new HealthCounts(corrected, uncorrected, 0L, aggregateUncorrected, null, null, null, rows, 0L, pending,
        failure, replays);
  }

  private static HealthVerdict judge(HealthCounts end) {
    return HealthRules.judge(new HealthInputs(CLEAN, end, List.of(), 0.88, FLOOR, 10, 0, 0));
  }

  private static List<Kind> kinds(HealthVerdict v) {
    return v.reasons().stream().map(HealthReason::kind).toList();
  }

  /** The verdict's state and its only reason, with the sentence an operator reads. */
  private static void assertOnlyReason(HealthVerdict v, HealthState state, Kind kind, String sentence) {
    assertThat(v.state()).isEqualTo(state);
    assertThat(kinds(v)).containsExactly(kind);
    assertThat(v.reasons().getFirst().sentence()).isEqualTo(sentence);
  }

  @Test
  void judge_cleanCountersAndFastMemcpy_healthyWithNothingUnread() {
    HealthVerdict v = judge(CLEAN);

    assertThat(v.state()).isEqualTo(HealthState.HEALTHY);
    assertThat(v.reasons()).isEmpty();
    assertThat(v.notRead()).isEmpty();
  }

  @Test
  void judge_uncorrectedEccDuringRun_failedCountingTheGrowth() {
    HealthVerdict v = judge(with(0L, 2L, 2L, 0L, false, false, 0L));

    assertOnlyReason(v, HealthState.FAILED, Kind.ECC_UNCORRECTED,
        "2 uncorrected ECC error(s) since the driver loaded, 2 during this run");
  }

  @Test
  void judge_uncorrectedOnlyInLifetimeCount_degradedAsHistory() {
    HealthVerdict v = judge(with(0L, 0L, 1L, 0L, false, false, 0L));

    assertThat(v.state()).isEqualTo(HealthState.DEGRADED);
    assertThat(kinds(v)).containsExactly(Kind.ECC_UNCORRECTED_HISTORY);
  }

  @Test
  void judge_correctedEccGrowth_degraded() {
    HealthVerdict v = judge(with(5L, 0L, 0L, 0L, false, false, 0L));

    assertThat(v.state()).isEqualTo(HealthState.DEGRADED);
    assertThat(kinds(v)).containsExactly(Kind.ECC_CORRECTED_GROWTH);
    assertThat(v.reasons().getFirst().value()).isEqualTo(5);
  }

  @Test
  void judge_correctedEccAlreadyThereAtStart_notCountedAgain() {
    HealthCounts before = with(5L, 0L, 0L, 0L, false, false, 0L);
    HealthVerdict v = HealthRules.judge(new HealthInputs(before, before, List.of(), 0.88, FLOOR, 10, 0, 0));

    assertThat(v.state()).isEqualTo(HealthState.HEALTHY);
  }

  @Test
  void judge_remapFailure_failed() {
    assertThat(kinds(judge(with(0L, 0L, 0L, 0L, false, true, 0L)))).containsExactly(Kind.REMAP_FAILED);
  }

  @Test
  void judge_remapPendingAndRowsRemappedDuringRun_degradedWithBoth() {
    HealthVerdict v = judge(with(0L, 0L, 0L, 1L, true, false, 0L));

    assertThat(v.state()).isEqualTo(HealthState.DEGRADED);
    assertThat(kinds(v)).containsExactlyInAnyOrder(Kind.REPAIR_PENDING, Kind.REPAIR_GROWTH);
  }

  @Test
  void judge_retirementPendingOnOlderGpu_degraded() {
    HealthCounts older = new HealthCounts(0L, 0L, 0L, 0L, 0L, 0L, true, null, null, null, null, 0L);
    HealthVerdict v = HealthRules.judge(new HealthInputs(older, older, List.of(), 0.88, FLOOR, 10, 0, 0));

    assertThat(v.state()).isEqualTo(HealthState.DEGRADED);
    assertThat(kinds(v)).containsExactly(Kind.REPAIR_PENDING);
    assertThat(v.notRead()).isEmpty();
  }

  @Test
  void judge_pcieReplaysGrew_degraded() {
    HealthVerdict v = judge(with(0L, 0L, 0L, 0L, false, false, 3L));

    assertOnlyReason(v, HealthState.DEGRADED, Kind.PCIE_REPLAYS, "3 PCIe replay(s) during the run");
  }

  @Test
  void judge_xidDuringRun_failedNamingTheXid() {
    HealthVerdict v = HealthRules.judge(new HealthInputs(CLEAN, CLEAN, List.of(79L), 0.88, FLOOR, 10, 0, 0));

    assertThat(v.state()).isEqualTo(HealthState.FAILED);
    assertThat(v.reasons().getFirst().sentence()).isEqualTo("1 XID critical error(s) during the run: XID 79");
  }

  @Test
  void judge_failedAndDegradedTogether_failedWithWorstReasonFirst() {
    HealthVerdict v = HealthRules.judge(new HealthInputs(CLEAN, with(4L, 0L, 0L, 0L, false, false, 0L),
        List.of(48L), 0.88, FLOOR, 10, 0, 0));

    assertThat(v.state()).isEqualTo(HealthState.FAILED);
    assertThat(kinds(v)).containsExactly(Kind.XID, Kind.ECC_CORRECTED_GROWTH);
  }

  @Test
  void judge_nothingRead_healthyButEveryInputNamedAsNotRead() {
    HealthVerdict v = HealthRules.judge(new HealthInputs(HealthCounts.NONE, HealthCounts.NONE, null, null, null, 0, 0,
        0));

    assertThat(v.state()).isEqualTo(HealthState.HEALTHY);
    assertThat(v.notRead()).containsExactly("uncorrected ECC errors", "XID events", "corrected ECC errors",
        "remapped rows and retired pages", "PCIe replays", "memcpy bandwidth", "clock event reasons");
    assertThat(v.sentence()).startsWith("HEALTHY (not read: uncorrected ECC errors, XID events");
  }

  @Test
  void judge_counterReadOnlyAtEnd_notTakenForGrowthFromZero() {
    HealthCounts startUnread = new HealthCounts(null, 0L, 0L, 0L, null, null, null, 0L, 0L, false, false, null);
    HealthVerdict v = HealthRules.judge(new HealthInputs(startUnread, with(9L, 0L, 0L, 0L, false, false, 9L),
        List.of(), 0.88, FLOOR, 10, 0, 0));

    assertThat(v.state()).isEqualTo(HealthState.HEALTHY);
    assertThat(v.notRead()).contains("corrected ECC errors", "PCIe replays");
  }

  @Test
  void judge_memcpyBelowFloor_degradedNamingTheFloorsSource() {
    HealthVerdict v = HealthRules.judge(new HealthInputs(CLEAN, CLEAN, List.of(), 0.70,
        MemcpyFloor.of("NVIDIA H100 80GB HBM3", List.of()), 10, 0, 0));

    assertOnlyReason(v, HealthState.DEGRADED, Kind.BANDWIDTH_BELOW_FLOOR, "memcpy reached 70.0% of peak, below the"
        + " floor of 77.9% (90% of the published 86.6% of peak (BabelStream copy, Azure ND H100 v5: 2900 of 3350 GB/s),"
        + " published)");
  }

  @Test
  void judge_throttledInMostCases_degradedNamingTheReason() {
    HealthVerdict v = HealthRules.judge(new HealthInputs(CLEAN, CLEAN, List.of(), 0.88, FLOOR, 10, 6, 0x40));

    assertOnlyReason(v, HealthState.DEGRADED, Kind.THROTTLE_PERSISTS,
        "throttled in 6 of 10 timed cases (hw thermal slowdown)");
  }

  @Test
  void judge_throttledInFewCases_healthy() {
    assertThat(HealthRules.judge(new HealthInputs(CLEAN, CLEAN, List.of(), 0.88, FLOOR, 10, 4, 0x40)).state())
        .isEqualTo(HealthState.HEALTHY);
    assertThat(HealthRules.judge(new HealthInputs(CLEAN, CLEAN, List.of(), 0.88, FLOOR, 4, 2, 0x40)).state())
        .isEqualTo(HealthState.HEALTHY);
  }

  @Test
  void ofRun_reasonsPerCase_countsThrottledCasesAndKeepsReasonsSeenInEach() {
    long idle = 0x1;
    HealthInputs in = HealthInputs.ofRun(CLEAN, CLEAN, List.of(), 0.88, FLOOR,
        List.of(0x44L, 0x40L, idle, 0x41L, 0x0L), 0x1 | 0x2 | 0x100);

    assertThat(in.timedCases()).isEqualTo(5);
    assertThat(in.throttledCases()).isEqualTo(3);
    assertThat(in.throttleReasons()).isEqualTo(0x40L);
    assertThat(HealthRules.judge(in).state()).isEqualTo(HealthState.DEGRADED);
  }
}
