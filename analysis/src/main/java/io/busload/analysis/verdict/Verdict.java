package io.busload.analysis.verdict;

/** What a candidate is against its baseline, in the measured quantity's "higher is better" sense. */
public enum Verdict {
  /** The whole confidence interval of the shift lies within the threshold. */
  SAME,
  /** Significantly higher by at least the threshold. */
  FASTER,
  /** Significantly lower by at least the threshold. */
  SLOWER,
  /** Neither: too few samples, an invalid side, or an interval that reaches past the threshold; the reason says. */
  UNCLEAR
}
