package io.busload.kernels;

import java.util.List;

/** One parameter axis of a kernel: its name and the values a suite sweeps, in order. */
public record Axis(String name, List<Long> values) {
  public Axis {
    values = List.copyOf(values);
    if (values.isEmpty()) {
      throw new IllegalArgumentException(name + ": an axis needs at least one value");
    }
  }
}
