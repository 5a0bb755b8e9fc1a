package io.busload.agent.verdicts;

import io.busload.analysis.Words;
import io.busload.analysis.verdict.Comparison;
import io.busload.analysis.verdict.Thresholds;
import io.busload.analysis.verdict.Verdict;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A compare as Markdown, ready to post on a pull request: what was compared, one row per kernel case (medians, shift
 * with its interval, verdict, notes), a count of verdicts, and the cases only one side has.
 *
 * @param onlyBaseline kernel cases the candidate lacks
 * @param onlyCandidate kernel cases the baseline lacks
 */
record CompareReport(String baseline, String candidate, Thresholds thresholds, List<KernelVerdict> rows,
    List<String> onlyBaseline, List<String> onlyCandidate) {

  boolean anySlower() {
    return rows.stream().anyMatch(r -> r.comparison().verdict() == Verdict.SLOWER);
  }

  void print(PrintWriter out) {
    out.println("### Busload compare: " + (anySlower() ? "SLOWER" : "no kernel slower"));
    out.println();
    out.println("Baseline: " + baseline + "  ");
    out.println("Candidate: " + candidate + "  ");
    out.println(String.format(Locale.ROOT, "Bandwidth per sample (useful bytes read + written), Mann-Whitney test, "
        + "Hodges-Lehmann shift with its %.0f%% interval; a shift counts from ±%s.", 100 * thresholds.confidence(),
        Words.percent(thresholds.minShift())));
    out.println();
    out.println("| kernel | params | baseline | candidate | shift (interval) | verdict | notes |");
    out.println("|---|---|---:|---:|---|---|---|");
    for (KernelVerdict row : rows) {
      Comparison c = row.comparison();
      List<String> notes = new ArrayList<>();
      if (c.verdict() == Verdict.UNCLEAR) {
        notes.add(c.reason());
      }
      notes.addAll(c.notes());
      String shift = c.relative() == null ? "" : Words.signedPercent(c.relative()) + " ("
          + Words.signedPercent(c.relativeLower()) + " to " + Words.signedPercent(c.relativeUpper()) + ")";
      String verdict = c.verdict() == Verdict.SLOWER || c.verdict() == Verdict.FASTER ? "**" + c.verdict() + "**"
          : c.verdict().name();
      out.println("| " + cell(row.kernel()) + " | " + cell(row.params()) + " | " + gbs(c.baselineMedian(), row.baseline())
          + " | " + gbs(c.candidateMedian(), row.candidate()) + " | " + shift + " | " + verdict + " | "
          + cell(String.join("; ", notes)) + " |");
    }
    Map<Verdict, Integer> counts = new EnumMap<>(Verdict.class);
    rows.forEach(r -> counts.merge(r.comparison().verdict(), 1, Integer::sum));
    out.println();
    List<String> tally = new ArrayList<>();
    for (Verdict v : Verdict.values()) {
      tally.add(counts.getOrDefault(v, 0) + " " + v);
    }
    out.println(String.join(", ", tally) + ".");
    if (!onlyBaseline.isEmpty()) {
      out.println("Only in the baseline: " + String.join(", ", onlyBaseline) + ".");
    }
    if (!onlyCandidate.isEmpty()) {
      out.println("Only in the candidate: " + String.join(", ", onlyCandidate) + ".");
    }
    out.flush();
  }

  /** Median bandwidth in GB/s (10^9 B/s); "invalid" or "no samples" when there is none. */
  private static String gbs(Double bytesPerSecond, Measured m) {
    if (bytesPerSecond != null) {
      return String.format(Locale.ROOT, "%.1f GB/s", bytesPerSecond / 1e9);
    }
    if (!m.valid()) {
      return "invalid";
    }
    return m.bandwidth() == null ? "no samples" : String.format(Locale.ROOT, "%.1f GB/s (median only)",
        m.bandwidth() / 1e9);
  }

  /** A Markdown table cell: pipes escaped, no line breaks. */
  private static String cell(String text) {
    return text.replace("|", "\\|").replace("\r", " ").replace("\n", " ");
  }
}
