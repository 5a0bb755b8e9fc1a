package io.busload.coordinator.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.analysis.verdict.Side;
import io.busload.coordinator.Fixtures;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.KernelResult;
import io.busload.protocol.MeasuredBy;
import io.busload.protocol.Origin;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The A/B comparison once both sides' results are read: pairing, newest per case, and each result's side. */
class AbVerdictsTest {
  private static final Instant T = Instant.parse("2026-11-01T00:00:00Z");
  private static final DeviceInfo GPU = Fixtures.gpu("h", 0);

  private static KernelResult result(String sweep, long stride, Instant at) {
    return Fixtures.result(sweep, "run-" + sweep, "a1", GPU, stride, true, at);
  }

  private static KernelResult withoutSamples(KernelResult r) {
    return KernelResult.builder().id(r.id()).runId(r.runId()).sweepId(r.sweepId()).agentId(r.agentId())
        .agentVersion(r.agentVersion()).fatbinHash(r.fatbinHash()).device(r.device()).suite(r.suite())
        .kernel(r.kernel()).params(r.params()).valid(true).mismatches(List.of()).medianSeconds(r.medianSeconds())
        .minSeconds(r.minSeconds()).maxSeconds(r.maxSeconds()).relativeSpread(r.relativeSpread()).samples(List.of())
        .launchesPerSample(r.launchesPerSample()).warmupLaunches(r.warmupLaunches()).bytesRead(r.bytesRead())
        .bytesWritten(r.bytesWritten()).bytes(r.bytes()).bandwidth(r.bandwidth()).method(r.method())
        .measuredAt(r.measuredAt()).build();
  }

  @Test
  void table_caseMeasuredTwiceOnOneSide_pairedOnItsNewestResult() {
    KernelResult older = result("a", 4, T);
    KernelResult newer = result("a", 4, T.plusSeconds(60));
    KernelResult candidate = result("b", 4, T.plusSeconds(120));

    AbVerdicts.Table table = AbVerdicts.table("a", "b", 0.01, List.of(newer, older), List.of(candidate), null);

    assertThat(table.rows()).singleElement().satisfies(row -> {
      assertThat(row.baselineResultId()).isEqualTo(newer.id());
      assertThat(row.candidateResultId()).isEqualTo(candidate.id());
      assertThat(row.params()).isEqualTo("elements=1024;stride=4");
    });
    assertThat(table.counts().values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(1);
  }

  @Test
  void table_casesMeasuredOnOneSideOnly_listedAsSuchAndNotJudged() {
    List<KernelResult> baseline = List.of(result("a", 4, T), result("a", 8, T));
    List<KernelResult> candidate = List.of(result("b", 4, T.plusSeconds(60)), result("b", 16, T.plusSeconds(60)));

    AbVerdicts.Table table = AbVerdicts.table("a", "b", 0.05, baseline, candidate, null);

    assertThat(table.rows()).extracting(AbVerdicts.Row::params).containsExactly("elements=1024;stride=4");
    assertThat(table.onlyBaseline()).containsExactly("stride_copy_fp32 elements=1024;stride=8");
    assertThat(table.onlyCandidate()).containsExactly("stride_copy_fp32 elements=1024;stride=16");
    assertThat(table.threshold()).isEqualTo(0.05);
  }

  @Test
  void side_noSamplesMeasuredBeforeTheRetentionCut_unusableNamingTheRetention() {
    KernelResult aged = withoutSamples(result("a", 4, T));

    Side side = AbVerdicts.side(aged, T.plusSeconds(1));

    assertThat(side.unusable()).startsWith("has no raw samples any more: the sample retention dropped those of"
        + " results measured before 2026-11-01T00:00:01Z");
  }

  @Test
  void side_noSamplesMeasuredAtOrAfterTheCutOrWithNoCut_notBlamedOnTheRetention() {
    KernelResult empty = withoutSamples(result("a", 4, T));

    assertThat(AbVerdicts.side(empty, T).unusable()).doesNotContain("retention");
    assertThat(AbVerdicts.side(empty, null).unusable()).doesNotContain("retention");
  }

  @Test
  void side_measuredByAnotherToolWithoutSamples_unusableNamingTheToolAndItsCentre() {
    KernelResult r = withoutSamples(result("a", 4, T));
    KernelResult pushed = r.withOrigin(new Origin(Origin.PUSHED, "push-1", "ci", "h", "babel.csv", null, T,
        new MeasuredBy("BabelStream", "5.0", MeasuredBy.MEAN, "check_solution")));

    Side side = AbVerdicts.side(pushed, T.plusSeconds(3600));

    assertThat(side.unusable()).isEqualTo("was measured by BabelStream 5.0, whose output carries no samples (only its"
        + " mean, min and max): History and change points use those; a verdict needs samples on each side");
  }

  @Test
  void side_validWithSamples_usableWithBandwidthPerSample() {
    KernelResult r = result("a", 4, T);

    Side side = AbVerdicts.side(r, T.plusSeconds(3600));

    assertThat(side.unusable()).isNull();
    assertThat(side.values()).hasSize(3).allSatisfy(v -> assertThat(v).isBetween(r.bandwidth() * 0.97,
        r.bandwidth() * 1.02));
  }
}
