package io.busload.analysis.verdict;

/**
 * @param minShift the smallest relative shift that counts (0.01: 1%); smaller shifts are SAME at best
 * @param confidence of the shift's interval, and 1 - the test's significance
 * @param minSamples fewest samples on each side for any verdict but UNCLEAR
 */
public record Thresholds(double minShift, double confidence, int minSamples) {
  public static final double DEFAULT_MIN_SHIFT = 0.01;

  public Thresholds {
    if (!(minShift >= 0 && minShift < 1)) {
      throw new IllegalArgumentException("threshold must be a fraction from 0 to below 1 (0.01 is 1%), was " + minShift);
    }
    if (!(confidence > 0.5 && confidence < 1)) {
      throw new IllegalArgumentException("confidence must be between 0.5 and 1, was " + confidence);
    }
    if (minSamples < 2) {
      throw new IllegalArgumentException("minSamples must be at least 2, was " + minSamples);
    }
  }

  public static Thresholds defaults() {
    return withMinShift(DEFAULT_MIN_SHIFT);
  }

  public static Thresholds withMinShift(double minShift) {
    return new Thresholds(minShift, 0.95, 5);
  }
}
