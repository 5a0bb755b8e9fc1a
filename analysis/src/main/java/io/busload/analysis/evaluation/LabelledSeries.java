package io.busload.analysis.evaluation;

import java.util.List;

/**
 * A series with its truth.
 *
 * @param kind what it holds
 * @param noise the noise's relative standard deviation (0.01: 1%)
 * @param step the level shift as a fraction of the level (negative: a drop); 0 for every kind but STEP, the total
 *     change for DRIFT, the outlier's size for OUTLIER, the second mode's offset for BIMODAL
 * @param changes indices where the level shifts (only STEP has one)
 * @param onset where a DRIFT starts (alarms before it are false); 0 for the other kinds
 * @param values the series, in arrival order
 */
public record LabelledSeries(Kind kind, double noise, double step, List<Integer> changes, int onset,
    double[] values) {

  /** The kinds of series in the corpus. */
  public enum Kind {
    STEP("level step"),
    DRIFT("slow drift"),
    OUTLIER("single outlier"),
    BIMODAL("bimodal noise"),
    STATIONARY("stationary");

    public final String words;

    Kind(String words) {
      this.words = words;
    }
  }

  /** |step| / noise: how many noise sigmas the step is. */
  public double ratio() {
    return noise == 0 ? Double.POSITIVE_INFINITY : Math.abs(step) / noise;
  }
}
