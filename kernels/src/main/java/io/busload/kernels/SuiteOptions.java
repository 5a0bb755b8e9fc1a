package io.busload.kernels;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Options of a suite run, resolved once from their text form before anything runs.
 *
 * @param size each case's size (its family's meaning; output elements for the copy families); empty means
 *     sized for the device by {@link Family#defaultSize}
 * @param axes axis values replacing the catalog's, for example {@code stride=3,5}
 * @param cacheStudy the user measures caches on purpose ({@code cache-study=true}): a case whose working set is under
 *     four L2s is labelled a cache study, not flagged as cache-resident by accident
 */
public record SuiteOptions(OptionalLong size, Map<String, List<Long>> axes, boolean cacheStudy) {
  public static final String SIZE = "size";
  /** The stride suite's name for {@link #SIZE}, kept for the copy families (output elements). */
  public static final String ELEMENTS = "elements";
  public static final String STRIDE = CopyFamily.STRIDE;
  public static final String OFFSET = CopyFamily.OFFSET;
  /** {@code true} or {@code false}: see {@link #cacheStudy()}. */
  public static final String CACHE_STUDY = "cache-study";
  /** The interconnect suite's bytes per direction, 16 B to 2^40 in multiples of 16. */
  public static final String BYTES = "bytes";
  /** The interconnect suite's other GPU of a pair, by host index; -1 is every other GPU of the host. */
  public static final String PEER = "peer";
  /** Every option that exists, for messages and for the coordinator's validation. */
  public static final Set<String> NAMES = Set.of(SIZE, ELEMENTS, STRIDE, OFFSET, CACHE_STUDY, BYTES, PEER);
  public static final long MAX_SIZE = CopyFamily.MAX_SIZE;
  /** The largest {@code elements}, kept for the copy families. */
  public static final long MAX_ELEMENTS = MAX_SIZE;

  public static final SuiteOptions DEFAULTS = new SuiteOptions(OptionalLong.empty(), Map.of());

  /** Options of a run that does not study caches. */
  public SuiteOptions(OptionalLong size, Map<String, List<Long>> axes) {
    this(size, axes, false);
  }

  public SuiteOptions {
    axes = Map.copyOf(axes);
    if (size.isPresent() && (size.getAsLong() <= 0 || size.getAsLong() > MAX_SIZE)) {
      throw new IllegalArgumentException(SIZE + ": must be a positive integer up to 2^40, got " + size.getAsLong());
    }
  }

  /**
   * Parses options by name; throws {@link IllegalArgumentException} whose message starts with the option
   * name for an unknown option or a bad value.
   */
  public static SuiteOptions parse(Map<String, String> options) {
    OptionalLong size = OptionalLong.empty();
    Map<String, List<Long>> axes = new TreeMap<>();
    boolean cacheStudy = false;
    for (Map.Entry<String, String> option : new TreeMap<>(options).entrySet()) {
      String name = option.getKey();
      String value = option.getValue() == null ? "" : option.getValue().trim();
      switch (name) {
        case SIZE, ELEMENTS -> {
          if (size.isPresent()) {
            throw new IllegalArgumentException(name + ": give either size or elements, not both");
          }
          size = OptionalLong.of(positiveLong(name, value));
        }
        case STRIDE -> axes.put(name, values(name, value, 1, CopyFamily.MAX_STRIDE));
        case OFFSET -> axes.put(name, values(name, value, 0, CopyFamily.MAX_OFFSET));
        case CACHE_STUDY -> cacheStudy = switch (value) {
          case "true" -> true;
          case "false" -> false;
          default -> throw new IllegalArgumentException(name + ": must be true or false, got '" + value + "'");
        };
        case BYTES -> axes.put(name, values(name, value, 16, MAX_SIZE));
        case PEER -> axes.put(name, values(name, value, -1, 1023));
        default -> throw new IllegalArgumentException(name + ": unknown option; known: "
            + String.join(", ", new TreeSet<>(NAMES)));
      }
    }
    return new SuiteOptions(size, axes, cacheStudy);
  }

  /** The stride suite's name for {@link #size()}. */
  public OptionalLong elements() {
    return size;
  }

  /** The text form, as {@link #parse} reads it. */
  public Map<String, String> asMap() {
    Map<String, String> map = new LinkedHashMap<>();
    size.ifPresent(n -> map.put(SIZE, Long.toString(n)));
    axes.forEach((axis, values) -> map.put(axis, String.join(",", values.stream().map(String::valueOf).toList())));
    if (cacheStudy) {
      map.put(CACHE_STUDY, "true");
    }
    return Map.copyOf(map);
  }

  private static List<Long> values(String name, String text, long min, long max) {
    List<Long> values = new java.util.ArrayList<>();
    for (String part : text.split(",")) {
      long value;
      try {
        value = Long.parseLong(part.trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(name + ": must be integers separated by commas, got '" + text + "'");
      }
      if (value < min || value > max) {
        throw new IllegalArgumentException(name + ": must be " + min + ".." + max + " elements, got " + value);
      }
      values.add(value);
    }
    return values;
  }

  private static long positiveLong(String name, String value) {
    long parsed;
    try {
      parsed = Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + ": must be a positive integer, got '" + value + "'");
    }
    if (parsed <= 0 || parsed > MAX_SIZE) {
      throw new IllegalArgumentException(name + ": must be a positive integer up to 2^40, got '" + value + "'");
    }
    return parsed;
  }
}
