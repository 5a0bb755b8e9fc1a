package io.busload.kernels;

import java.util.List;

/**
 * Outcome of comparing a device's output with the CPU reference.
 *
 * @param mismatches the first few, as {@code out[i]: expected X, got Y}
 * @param mismatchCount every mismatching element
 */
public record Check(long checked, long mismatchCount, List<String> mismatches) {
  /** How many mismatches a check reports in words; the count says how many there were. */
  public static final int REPORTED = 5;

  public Check {
    mismatches = List.copyOf(mismatches);
  }

  public boolean passed() {
    return mismatchCount == 0;
  }

  /** Checks of consecutive parts as one, first mismatches in part order. */
  public static Check merge(List<Check> parts) {
    Collector all = new Collector();
    for (Check part : parts) {
      all.checked(part.checked());
      part.mismatches().forEach(all::mismatch);
      all.mismatchCount += part.mismatchCount() - part.mismatches().size();
    }
    return all.result();
  }

  /** One contiguous part of a check: compare elements {@code [from, to)} into {@code collector}. */
  @FunctionalInterface
  public interface Part {
    void check(long from, long to, Collector collector);
  }

  /**
   * Checks {@code [0, count)} in contiguous parts on every core (none under 64 Ki elements, so small checks stay on
   * the calling thread), first mismatches in element order (host-side checks dominated the suite's time).
   * Each part counts what it compared.
   */
  public static Check inParts(long count, Part part) {
    return inParts(count, 1, part);
  }

  /** As {@link #inParts(long, Part)} for items of {@code perItem} elements each (rows, particles). */
  public static Check inParts(long count, long perItem, Part part) {
    int parts = (int) Math.max(1, Math.min(Math.min(Runtime.getRuntime().availableProcessors(), count),
        count * perItem / 65_536));
    return merge(java.util.stream.IntStream.range(0, parts).parallel().mapToObj(p -> {
      Collector collector = new Collector();
      part.check(count * p / parts, count * (p + 1) / parts, collector);
      return collector.result();
    }).toList());
  }

  /** Counts checked elements and keeps the first {@link #REPORTED} mismatches, for a program's reference check. */
  public static final class Collector {
    private long checked;
    private long mismatchCount;
    private final List<String> first = new java.util.ArrayList<>();

    /** {@code count} more elements were compared. */
    public void checked(long count) {
      checked += count;
    }

    /** One mismatch, described as {@code out[i]: expected X, got Y}. */
    public void mismatch(String description) {
      mismatchCount++;
      if (first.size() < REPORTED) {
        first.add(description);
      }
    }

    /** As {@link #mismatch(String)}, building the words only for the first few (a poisoned matrix has millions). */
    public void mismatch(java.util.function.Supplier<String> description) {
      mismatchCount++;
      if (first.size() < REPORTED) {
        first.add(description.get());
      }
    }

    public Check result() {
      return new Check(checked, mismatchCount, first);
    }
  }
}
