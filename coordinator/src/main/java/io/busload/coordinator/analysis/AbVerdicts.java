package io.busload.coordinator.analysis;

import io.busload.analysis.verdict.AbTest;
import io.busload.analysis.verdict.Comparison;
import io.busload.analysis.verdict.Setting;
import io.busload.analysis.verdict.Side;
import io.busload.analysis.verdict.Thresholds;
import io.busload.analysis.verdict.Verdict;
import io.busload.coordinator.store.Params;
import io.busload.coordinator.store.VerdictStore;
import io.busload.protocol.KernelResult;
import io.busload.protocol.MeasuredBy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Two sweeps or devices compared kernel case by kernel case on their raw samples ({@link AbTest}): the newest result
 * of each case on each side, paired by kernel and params. A side is named by a sweep id or a device id, or by
 * {@code sweep:ID} or {@code device:ID} where both could match.
 */
public final class AbVerdicts {
  private final VerdictStore verdicts;

  public AbVerdicts(VerdictStore verdicts) {
    this.verdicts = verdicts;
  }

  /** One kernel case of a comparison. */
  public record Row(String kernel, String params, Verdict verdict, String reason, Double baselineMedian,
      Double candidateMedian, Double relative, Double relativeLower, Double relativeUpper, Double pValue,
      int baselineSamples, int candidateSamples, List<String> notes, UUID baselineResultId, UUID candidateResultId) {}

  /**
   * A whole comparison: the paired cases, how many got each verdict, and the cases only one side measured (as
   * {@code "kernel params"}).
   */
  public record Table(String baseline, String candidate, double threshold, Map<Verdict, Integer> counts,
      List<Row> rows, List<String> onlyBaseline, List<String> onlyCandidate) {}

  /**
   * The comparison of {@code baseline} against {@code candidate}, a case SLOWER or FASTER only past {@code threshold}
   * (a fraction). Blocking: store reads.
   *
   * @throws UnknownId when a side names no sweep or device with results (its role: {@code baseline} or
   *     {@code candidate})
   */
  public Table compare(String baseline, String candidate, double threshold) {
    List<KernelResult> before = results("baseline", baseline);
    List<KernelResult> after = results("candidate", candidate);
    return table(baseline, candidate, threshold, before, after, verdicts.samplesDroppedBefore().orElse(null));
  }

  /** The comparison of two sides' results, as {@link #compare} answers it once they are read. */
  static Table table(String baseline, String candidate, double threshold, List<KernelResult> baselineResults,
      List<KernelResult> candidateResults, Instant samplesKeptSince) {
    Map<String, KernelResult> before = newest(baselineResults);
    Map<String, KernelResult> after = newest(candidateResults);
    Thresholds thresholds = Thresholds.withMinShift(threshold);
    List<Row> rows = new ArrayList<>();
    Map<Verdict, Integer> counts = new EnumMap<>(Verdict.class);
    for (Map.Entry<String, KernelResult> e : before.entrySet()) {
      KernelResult b = e.getValue();
      KernelResult c = after.get(e.getKey());
      if (c == null) {
        continue;
      }
      Comparison v = AbTest.compare(side(b, samplesKeptSince), side(c, samplesKeptSince), thresholds);
      counts.merge(v.verdict(), 1, Integer::sum);
      rows.add(new Row(b.kernel(), Params.text(b.params()), v.verdict(), v.reason(), v.baselineMedian(),
          v.candidateMedian(), v.relative(), v.relativeLower(), v.relativeUpper(),
          v.shift() == null ? null : v.shift().pValue(), v.baselineCount(), v.candidateCount(), v.notes(), b.id(),
          c.id()));
    }
    return new Table(baseline, candidate, threshold, counts, rows,
        before.keySet().stream().filter(k -> !after.containsKey(k)).toList(),
        after.keySet().stream().filter(k -> !before.containsKey(k)).toList());
  }

  /**
   * A result's side of a comparison: bandwidth per sample, and what it was measured with. A valid result without
   * samples that was measured before {@code samplesKeptSince} (null: no samples were ever aged out) lost them to the
   * retention, and its side says so; its stored summary is no stand-in for the samples the test needs. A result
   * another tool measured never had samples: its side says that instead.
   */
  public static Side side(KernelResult r, Instant samplesKeptSince) {
    String problem = r.valid() ? null : r.mismatches().isEmpty() ? r.method() : r.mismatches().getFirst();
    Setting setting = new Setting(r.device().name(), r.device().fingerprint(), r.device().driverVersion(),
        r.agentVersion(), r.fatbinHash(), ClockConditions.of(r));
    MeasuredBy tool = r.origin() == null ? null : r.origin().measuredBy();
    if (r.valid() && r.samples().isEmpty() && tool != null) {
      return Side.unusable(r.id().toString(), setting, "was measured by " + tool.describe() + ", whose output carries"
          + " no samples (only its " + tool.centre() + ", min and max): History and change points use those; a"
          + " verdict needs samples on each side");
    }
    if (r.valid() && r.samples().isEmpty() && samplesKeptSince != null && r.measuredAt().isBefore(samplesKeptSince)) {
      return Side.unusable(r.id().toString(), setting, "has no raw samples any more: the sample retention dropped"
          + " those of results measured before " + samplesKeptSince + " (its median, spread and clocks are kept;"
          + " compare results measured since)");
    }
    return Side.ofResult(r.id().toString(), setting, r.valid(), problem, r.samples(), r.bytes());
  }

  /** The results a side names; a bare id is tried as a sweep first. */
  private List<KernelResult> results(String role, String id) {
    if (id.startsWith("sweep:")) {
      return sweep(role, id.substring("sweep:".length()));
    }
    if (id.startsWith("device:")) {
      return device(role, id.substring("device:".length()));
    }
    List<KernelResult> asSweep = verdicts.sweepResults(id);
    if (!asSweep.isEmpty()) {
      return asSweep;
    }
    List<KernelResult> asDevice = verdicts.deviceLatest(id);
    if (asDevice.isEmpty()) {
      throw new UnknownId(role, "unknown sweep or device '" + id + "' (no results under that id)");
    }
    return asDevice;
  }

  private List<KernelResult> sweep(String role, String id) {
    List<KernelResult> found = verdicts.sweepResults(id);
    if (found.isEmpty()) {
      throw new UnknownId(role, "unknown sweep '" + id + "' (or one without results yet)");
    }
    return found;
  }

  private List<KernelResult> device(String role, String id) {
    List<KernelResult> found = verdicts.deviceLatest(id);
    if (found.isEmpty()) {
      throw new UnknownId(role, "unknown device '" + id + "' (no results)");
    }
    return found;
  }

  /** Each kernel case's newest result: a sweep that measured a case twice is judged on its later try. */
  private static Map<String, KernelResult> newest(List<KernelResult> results) {
    Map<String, KernelResult> newest = new LinkedHashMap<>();
    for (KernelResult r : results) {
      newest.merge(r.kernel() + " " + Params.text(r.params()), r,
          (a, b) -> b.measuredAt().isAfter(a.measuredAt()) ? b : a);
    }
    return newest;
  }
}
