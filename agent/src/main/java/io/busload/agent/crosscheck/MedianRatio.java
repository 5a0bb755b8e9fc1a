package io.busload.agent.crosscheck;

/**
 * One case's median over a reference run's median (the standalone run's for the fleet, native CUDA's for JCuda),
 * and whether it holds: both comparisons judge a case the same way, so a case means the same in either report.
 */
public interface MedianRatio {
  /** This run's median over the reference's. */
  double ratio();

  /** Why there is no ratio (no reference row, invalid here), else empty. */
  String note();

  /** The fraction the ratio may differ from 1. */
  double tolerance();

  default boolean compared() {
    return note().isEmpty();
  }

  default boolean within() {
    return compared() && Math.abs(ratio() - 1) <= tolerance();
  }
}
