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

  double[] array() {
    return values.stream().mapToDouble(Double::doubleValue).toArray();
  }
}
