package io.busload.kernels;

import java.util.Map;
import java.util.TreeMap;

/** One kernel at one point of its axes: the thing that is measured once and becomes one result. */
public record KernelCase(KernelSpec spec, Map<String, Long> params) {

  public KernelCase {
    params = java.util.Collections.unmodifiableMap(new TreeMap<>(params));
  }

  /** Value of one parameter; {@link IllegalArgumentException} naming it when the kernel has none. */
  public long param(String name) {
    Long value = params.get(name);
    if (value == null) {
      throw new IllegalArgumentException(name + ": " + spec.name() + " has no such parameter");
    }
    return value;
  }

  @Override
  public String toString() {
    return spec.name() + params;
  }
}
