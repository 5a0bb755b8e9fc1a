package io.busload.analysis.verdict;

import io.busload.analysis.stats.Shift;
import java.util.List;

/**
 * A candidate against its baseline.
 *
 * @param reason why the verdict is what it is, in one sentence
 * @param shift candidate - baseline in the values' unit, with its interval and p-value; null when not computed
 * @param relative the shift as a fraction of the baseline median (-0.07: 7% lower); null with no shift
 * @param relativeLower the interval's lower end as such a fraction; null with no shift
 * @param relativeUpper the interval's upper end as such a fraction; null with no shift
 * @param notes what else differed (clocks, throttling, driver, device), most telling first
 */
public record Comparison(Verdict verdict, String reason, int baselineCount, int candidateCount, Double baselineMedian,
    Double candidateMedian, Shift shift, Double relative, Double relativeLower, Double relativeUpper,
    List<String> notes) {

  public Comparison {
    notes = List.copyOf(notes);
  }
}
