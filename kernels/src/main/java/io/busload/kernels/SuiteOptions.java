package io.busload.kernels;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;

/**
 * Options of a suite run, resolved once from their text form before anything runs.
 *
 * @param elements output elements per kernel; empty means sized for the device
 */
public record SuiteOptions(OptionalLong elements) {
  public static final String ELEMENTS = "elements";
  /** Every option that exists, for messages and for the coordinator's validation. */
  public static final Set<String> NAMES = Set.of(ELEMENTS);
  /** Largest {@code elements}: keeps every byte count of every kernel (up to 32 x 4 bytes each) in a long. */
  public static final long MAX_ELEMENTS = 1L << 40;

  public static final SuiteOptions DEFAULTS = new SuiteOptions(OptionalLong.empty());

  public SuiteOptions {
    if (elements.isPresent() && (elements.getAsLong() <= 0 || elements.getAsLong() > MAX_ELEMENTS)) {
      throw new IllegalArgumentException(ELEMENTS + ": must be a positive integer up to 2^40, got "
          + elements.getAsLong());
    }
  }

  /**
   * Parses options by name; throws {@link IllegalArgumentException} whose message starts with the option
   * name for an unknown option or a bad value.
   */
  public static SuiteOptions parse(Map<String, String> options) {
    OptionalLong elements = OptionalLong.empty();
    for (Map.Entry<String, String> option : new java.util.TreeMap<>(options).entrySet()) {
      String name = option.getKey();
      String value = option.getValue() == null ? "" : option.getValue().trim();
      if (name.equals(ELEMENTS)) {
        elements = OptionalLong.of(positiveLong(name, value));
      } else {
        throw new IllegalArgumentException(name + ": unknown option; known: " + String.join(", ", new TreeSet<>(NAMES)));
      }
    }
    return new SuiteOptions(elements);
  }

  /** Output elements to use: the option when given, else the device's default. */
  public long elementsOr(long deviceDefault) {
    return elements.orElse(deviceDefault);
  }

  /** The text form, as {@link #parse} reads it. */
  public Map<String, String> asMap() {
    Map<String, String> map = new LinkedHashMap<>();
    elements.ifPresent(n -> map.put(ELEMENTS, Long.toString(n)));
    return Map.copyOf(map);
  }

  private static long positiveLong(String name, String value) {
    long parsed;
    try {
      parsed = Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + ": must be a positive integer, got '" + value + "'");
    }
    if (parsed <= 0 || parsed > MAX_ELEMENTS) {
      throw new IllegalArgumentException(name + ": must be a positive integer up to 2^40, got '" + value + "'");
    }
    return parsed;
  }
}
