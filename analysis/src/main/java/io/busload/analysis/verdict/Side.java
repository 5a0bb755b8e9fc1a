package io.busload.analysis.verdict;

import java.util.List;

/**
 * One side of a comparison: per-sample values where higher is better (bytes per second), where they came from,
 * and, when the side cannot be compared at all, why ({@code unusable}, e.g. "the output check failed").
 */
public record Side(String label, List<Double> values, Setting setting, String unusable) {
  public Side {
    values = List.copyOf(values);
  }

  public static Side of(String label, List<Double> values, Setting setting) {
    return new Side(label, values, setting, null);
  }

  public static Side unusable(String label, Setting setting, String why) {
    return new Side(label, List.of(), setting, why);
  }

  /**
   * A measured result's side: its bandwidth per sample ({@code bytes / seconds}), or why it has none.
   *
   * @param problem the first mismatch or error of an invalid result (null: none stated)
   * @param sampleSeconds seconds per launch, one per sample (empty: the source held none)
   */
  public static Side ofResult(String label, Setting setting, boolean valid, String problem, List<Double> sampleSeconds,
      long bytes) {
    if (!valid) {
      return unusable(label, setting, "is invalid: " + (problem == null ? "its output check failed" : problem));
    }
    if (sampleSeconds.isEmpty()) {
      return unusable(label, setting, "holds no raw samples (a CSV without the sampleSeconds column)");
    }
    if (bytes <= 0) {
      return unusable(label, setting, "counts no bytes moved, so it has no bandwidth");
    }
    return of(label, sampleSeconds.stream().filter(s -> s > 0).map(s -> bytes / s).toList(), setting);
  }

  double[] array() {
    return values.stream().mapToDouble(Double::doubleValue).toArray();
  }
}
