package io.busload.kernels;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** One kernel at one point of its axes: the thing that is measured once and becomes one result. */
public record KernelCase(KernelSpec spec, Map<String, Long> params) {

  public KernelCase {
    params = java.util.Collections.unmodifiableMap(new TreeMap<>(params));
  }

  public long inputElements(long outputElements) {
    return spec.pattern().inputElements(outputElements, params);
  }

  public Traffic traffic(long outputElements) {
    return spec.pattern().traffic(outputElements, params);
  }

  public List<Coalescing> coalescing() {
    return spec.pattern().coalescing(params);
  }

  public Optional<Launch> launch(long outputElements) {
    return spec.launch(outputElements);
  }

  /** Value of one parameter, for building a launch's arguments. */
  public long param(String name) {
    Long value = params.get(name);
    if (value == null) {
      throw new IllegalArgumentException(spec.name() + " has no parameter '" + name + "'");
    }
    return value;
  }

  /**
   * Compares all {@code outputElements} of {@code output} with the reference computed from {@code input},
   * bit for bit (a copy must not change a bit), reporting the first {@link Check#REPORTED} mismatches.
   */
  public Check check(FloatView input, FloatView output, long outputElements) {
    List<String> first = new ArrayList<>();
    long mismatches = 0;
    for (long i = 0; i < outputElements; i++) {
      float expected = spec.pattern().expected(input, i, params);
      float actual = output.get(i);
      if (Float.floatToRawIntBits(expected) != Float.floatToRawIntBits(actual)) {
        mismatches++;
        if (first.size() < Check.REPORTED) {
          first.add("out[" + i + "]: expected " + expected + ", got " + describe(actual));
        }
      }
    }
    return new Check(outputElements, mismatches, first);
  }

  private static String describe(float value) {
    return Float.floatToRawIntBits(value) == Poison.BITS ? "poison (never written)" : Float.toString(value);
  }

  @Override
  public String toString() {
    return spec.name() + params;
  }
}
