package io.busload.analysis.stats;

/**
 * How far a candidate's values sit from a baseline's: the Hodges-Lehmann estimate (the median of all pairwise
 * differences candidate - baseline) and its confidence interval, in the values' own unit.
 *
 * @param pValue two-sided Mann-Whitney p-value for "no shift" (exact for small samples without ties)
 */
public record Shift(double estimate, double lower, double upper, double confidence, double pValue) {

  /** Whether the interval leaves out zero: the two differ at this confidence. */
  public boolean excludesZero() {
    return lower > 0 || upper < 0;
  }
}
