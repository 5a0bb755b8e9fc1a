package io.busload.analysis.stats;

import java.util.Arrays;
import java.util.Collection;

/** Median and median absolute deviation: one outlier in a history or a cohort cannot move them. */
public final class Robust {
  /** {@code sigma = 1.4826 * MAD} estimates the standard deviation of normal noise. */
  public static final double MAD_TO_SIGMA = 1.4826;

  private Robust() {}

  public static double median(double[] values) {
    if (values.length == 0) {
      throw new IllegalArgumentException("median of no values");
    }
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sortedMedian(sorted, 0, sorted.length);
  }

  public static double median(Collection<Double> values) {
    return median(values.stream().mapToDouble(Double::doubleValue).toArray());
  }

  /** Median of {@code sorted[from, to)}, which must be sorted. */
  static double sortedMedian(double[] sorted, int from, int to) {
    int n = to - from;
    int mid = from + n / 2;
    return n % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  }

  /** Median absolute deviation from {@code center}. */
  public static double mad(double[] values, double center) {
    return median(Arrays.stream(values).map(v -> Math.abs(v - center)).toArray());
  }

  /** {@link #MAD_TO_SIGMA} times the MAD around the median. */
  public static double sigma(double[] values) {
    return MAD_TO_SIGMA * mad(values, median(values));
  }
}
