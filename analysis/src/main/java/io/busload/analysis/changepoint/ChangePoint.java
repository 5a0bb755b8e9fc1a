package io.busload.analysis.changepoint;

/**
 * A level shift: the series' values from {@code index} on sit at a different level than those before it.
 *
 * @param index first value of the new level, in the series' own numbering (0 = its first value)
 * @param before median of the segment before the change
 * @param after median of the segment from the change on
 * @param sigma robust noise (1.4826 x MAD pooled over both segments, around their own medians)
 * @param qHat E-Divisive's divergence statistic at the split
 * @param pValue permutation p-value (an upper estimate when the test stopped early, as it does once the answer is
 *     certain)
 */
public record ChangePoint(long index, double before, double after, double sigma, double qHat, double pValue) {

  /** (after - before) / before: -0.07 is a 7% drop. */
  public double relativeShift() {
    return before == 0 ? 0 : (after - before) / Math.abs(before);
  }

  /** This change with its index moved by {@code offset} (a window's position in the whole series). */
  ChangePoint shifted(long offset) {
    return new ChangePoint(index + offset, before, after, sigma, qHat, pValue);
  }
}
