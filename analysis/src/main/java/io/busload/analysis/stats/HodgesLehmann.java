package io.busload.analysis.stats;

import java.util.Arrays;
import org.apache.commons.statistics.inference.MannWhitneyUTest;

/**
 * The Hodges-Lehmann shift between two samples and its confidence interval, found by inverting the Mann-Whitney
 * test: the interval holds every shift {@code d} for which "candidate - d and baseline come from one
 * distribution" is not rejected. So the interval and the test's p-value always agree (the interval leaves out 0
 * exactly when p is below 1 - confidence), and small samples get commons-statistics' exact p-values.
 *
 * <p>The test's p-value as a function of {@code d} only changes where {@code d} crosses a pairwise difference,
 * so the search evaluates it between consecutive sorted differences and returns differences as the ends (Moses'
 * interval); it is unimodal around the estimate, so each end is a binary search.
 */
public final class HodgesLehmann {
  private static final MannWhitneyUTest TEST = MannWhitneyUTest.withDefaults();

  private HodgesLehmann() {}

  /** Shift of {@code candidate} against {@code baseline}; each needs at least one value. */
  public static Shift shift(double[] baseline, double[] candidate, double confidence) {
    if (baseline.length == 0 || candidate.length == 0) {
      throw new IllegalArgumentException("a shift needs values on both sides");
    }
    if (!(confidence > 0 && confidence < 1)) {
      throw new IllegalArgumentException("confidence must be between 0 and 1, was " + confidence);
    }
    double[] diffs = new double[baseline.length * candidate.length];
    int k = 0;
    for (double c : candidate) {
      for (double b : baseline) {
        diffs[k++] = c - b;
      }
    }
    Arrays.sort(diffs);
    double estimate = Robust.sortedMedian(diffs, 0, diffs.length);
    double alpha = 1 - confidence;
    var atZero = TEST.test(candidate, baseline);
    // Between-difference points: gap i lies between diffs[i-1] and diffs[i] (gap 0 below all, gap n above all).
    int n = diffs.length;
    int center = countBelow(diffs, estimate);
    // Lower end: the first gap at or left of the centre whose shift is accepted; its left difference is the end.
    int lo = 0;
    int hi = center;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (accepted(candidate, baseline, gapPoint(diffs, mid), alpha)) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    double lower = lo == 0 ? Double.NEGATIVE_INFINITY : diffs[lo - 1];
    lo = center;
    hi = n;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (accepted(candidate, baseline, gapPoint(diffs, mid), alpha)) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    double upper = lo == n ? Double.POSITIVE_INFINITY : diffs[lo];
    // With the estimate itself rejected (tiny samples), the interval is the estimate: nothing narrower exists.
    lower = Math.min(lower, estimate);
    upper = Math.max(upper, estimate);
    return new Shift(estimate, lower, upper, confidence, atZero.getPValue());
  }

  private static int countBelow(double[] sorted, double value) {
    int lo = 0;
    int hi = sorted.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (sorted[mid] < value) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  private static double gapPoint(double[] diffs, int gap) {
    if (gap == 0) {
      return diffs[0] - 1 - Math.abs(diffs[0]);
    }
    if (gap == diffs.length) {
      return diffs[gap - 1] + 1 + Math.abs(diffs[gap - 1]);
    }
    return (diffs[gap - 1] + diffs[gap]) / 2;
  }

  private static boolean accepted(double[] candidate, double[] baseline, double shift, double alpha) {
    return TEST.withMu(shift).test(candidate, baseline).getPValue() >= alpha;
  }
}
