package io.busload.dashboard.coordinator;

import java.util.List;
import java.util.Map;

/**
 * Two sweeps or devices compared kernel case by kernel case on their raw samples ({@code GET /api/verdicts}).
 *
 * @param counts verdicts by name (SAME, FASTER, SLOWER, UNCLEAR)
 */
public record Verdicts(String baseline, String candidate, double threshold, Map<String, Integer> counts,
    List<Row> rows, List<String> onlyBaseline, List<String> onlyCandidate) {

  public Verdicts {
    counts = counts == null ? Map.of() : Map.copyOf(counts);
    rows = rows == null ? List.of() : List.copyOf(rows);
    onlyBaseline = onlyBaseline == null ? List.of() : List.copyOf(onlyBaseline);
    onlyCandidate = onlyCandidate == null ? List.of() : List.copyOf(onlyCandidate);
  }

  /**
   * One kernel case: medians in bytes per second, the shift and its interval as fractions of the baseline median
   * (null when there was no verdict to compute), and what else differed.
   */
  public record Row(String kernel, String params, String verdict, String reason, Double baselineMedian,
      Double candidateMedian, Double relative, Double relativeLower, Double relativeUpper, Double pValue,
      int baselineSamples, int candidateSamples, List<String> notes) {

    public Row {
      notes = notes == null ? List.of() : List.copyOf(notes);
    }
  }
}
