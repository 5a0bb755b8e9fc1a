package io.busload.agent.measure;

import io.busload.protocol.StopReason;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * When to stop sampling one kernel: at least {@code minSamples}, then as soon as the relative spread
 * ({@code (max - min) / median}) of the last {@code window} samples is under {@code maxSpread}; or when the
 * time cap or the sample cap is reached, whichever comes first.
 */
public record StoppingRule(int minSamples, int window, double maxSpread, double timeCapSeconds, int maxSamples) {

  public StoppingRule {
    if (minSamples < 1 || window < 2 || window > Math.max(minSamples, 2) || maxSamples < minSamples) {
      throw new IllegalArgumentException("stopping rule needs 1 <= window <= minSamples <= maxSamples");
    }
  }

  /** At least 10 samples, last 10 within 0.5%, at most {@code timeCapSeconds}. */
  public static StoppingRule standard(double timeCapSeconds) {
    return new StoppingRule(10, 10, 0.005, timeCapSeconds, 1000);
  }

  /** Why sampling stops now, in words, or null to go on; every sample counts as clean. */
  public String stopReason(List<Double> samples, double elapsedSeconds) {
    StopReason stop = stop(samples, samples.size(), elapsedSeconds);
    return stop == null ? null : describe(stop);
  }

  /**
   * Why sampling stops now, or null to go on. The spread is judged on the {@code clean} samples (those
   * kept: not taken while throttled); the caps count every one {@code timed}, so a GPU that throttles throughout
   * still stops at the time cap once three samples were timed.
   */
  public StopReason stop(List<Double> clean, int timed, double elapsedSeconds) {
    if (timed >= maxSamples) {
      return StopReason.SAMPLE_CAP;
    }
    if (clean.size() >= minSamples && spread(clean.subList(clean.size() - window, clean.size())) < maxSpread) {
      return StopReason.SPREAD_SETTLED;
    }
    if (elapsedSeconds >= timeCapSeconds && timed >= Math.min(minSamples, 3)) {
      return StopReason.TIME_CAP;
    }
    return null;
  }

  /** This rule's {@code reason} in words, with its thresholds. */
  public String describe(StopReason reason) {
    return switch (reason) {
      case SAMPLE_CAP -> "sample cap " + maxSamples;
      case SPREAD_SETTLED -> "spread of the last " + window + " under " + plain(maxSpread * 100) + "%";
      case TIME_CAP -> "time cap " + plain(timeCapSeconds) + " s";
    };
  }

  /** {@code (max - min) / median}. */
  public static double spread(List<Double> samples) {
    return (Collections.max(samples) - Collections.min(samples)) / median(samples);
  }

  public static double median(List<Double> samples) {
    List<Double> sorted = new ArrayList<>(samples);
    Collections.sort(sorted);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  private static String plain(double value) {
    return new java.math.BigDecimal(value).round(new java.math.MathContext(3)).stripTrailingZeros().toPlainString();
  }
}
