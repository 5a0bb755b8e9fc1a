package io.busload.agent.measure;

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

  /** Why sampling stops now, or null to go on. */
  public String stopReason(List<Double> samples, double elapsedSeconds) {
    if (samples.size() >= maxSamples) {
      return "sample cap " + maxSamples;
    }
    if (samples.size() >= minSamples && spread(samples.subList(samples.size() - window, samples.size())) < maxSpread) {
      return "spread of the last " + window + " under " + plain(maxSpread * 100) + "%";
    }
    if (elapsedSeconds >= timeCapSeconds && samples.size() >= Math.min(minSamples, 3)) {
      return "time cap " + plain(timeCapSeconds) + " s";
    }
    return null;
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
