package io.busload.analysis.health;

import java.util.List;
import java.util.Locale;

/**
 * The least fraction of its theoretical peak a model's memcpy-d2d should reach: the fleet's own median for the
 * model times {@link #FACTOR} where it has {@link #MIN_PEERS} devices of the model, or else a published figure for the
 * model times the same factor, labelled as published. A model with neither has no floor, and the rule is not applied.
 *
 * @param fraction the floor, as a fraction of the theoretical peak
 * @param source where it comes from, in words: the fleet's median and how many devices, or the published source
 * @param published whether it comes from a published figure rather than this fleet's measurements
 */
public record MemcpyFloor(double fraction, String source, boolean published) {
  /** A device may fall this far below its model's median before it is called slow (docs/design/health.md). */
  public static final double FACTOR = 0.90;
  /** Devices of a model, each with a memcpy figure, for the fleet's median to stand as the reference. */
  public static final int MIN_PEERS = 3;

  /**
   * Published copy bandwidth as a fraction of peak: BabelStream's public copy results on Azure's ND H100 v5 (2900 of
   * 3350 GB/s) and ND H200 v5 (4010 of 4800 GB/s), the same figures docs/results/2026-11-22-h100-coalescing sets
   * beside Busload's memcpy.
   */
  record Published(String modelWord, String excluded, double fraction, String source) {}

  private static final List<Published> PUBLISHED = List.of(
      new Published("h100", "pcie|nvl", 2900.0 / 3350.0, "BabelStream copy, Azure ND H100 v5: 2900 of 3350 GB/s"),
      new Published("h200", "nvl", 4010.0 / 4800.0, "BabelStream copy, Azure ND H200 v5: 4010 of 4800 GB/s"));

  /**
   * The floor for {@code model} given the memcpy fractions of peak of the fleet's devices of that model (one per
   * device, the device judged included); null when there is neither enough fleet nor a published figure.
   */
  public static MemcpyFloor of(String model, List<Double> fleetFractions) {
    if (fleetFractions.size() >= MIN_PEERS) {
      double median = median(fleetFractions);
      return new MemcpyFloor(median * FACTOR, String.format(Locale.ROOT,
          "%.0f%% of the median %.1f%% of peak of %d %s devices in this fleet", FACTOR * 100, median * 100,
          fleetFractions.size(), model), false);
    }
    String lower = model == null ? "" : model.toLowerCase(Locale.ROOT);
    for (Published p : PUBLISHED) {
      if (lower.contains(p.modelWord()) && !lower.matches(".*(" + p.excluded() + ").*")) {
        return new MemcpyFloor(p.fraction() * FACTOR, String.format(Locale.ROOT,
            "%.0f%% of the published %.1f%% of peak (%s)", FACTOR * 100, p.fraction() * 100, p.source()), true);
      }
    }
    return null;
  }

  static double median(List<Double> values) {
    double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
