package io.busload.kernels.matmul;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;

/**
 * Each matmul kernel's speed as a percentage of cuBLAS SGEMM measured in the same run at the same size, the
 * seed's measure ({@code 100 * cuBLAS time / kernel time}: the naive kernel near 1.3%, the remap near 8.5% in
 * seeds/coalescing-bus-metaphor.txt). Independent of how results are stored: the caller maps each result to a
 * {@link Timed}, with a {@code group} that is equal for results that may be compared (same device and size).
 */
public final class PercentOfCublas {
  private PercentOfCublas() {}

  /**
   * One measured result.
   *
   * @param kernel catalog name ({@code matmul-naive}); results of other families are ignored
   * @param group what must match to compare, for example {@code "<device id> n=4096"}
   * @param valid whether its output passed the check (an invalid result has no speed)
   * @param medianSeconds median seconds per launch
   */
  public record Timed(String kernel, String group, boolean valid, double medianSeconds) {}

  /**
   * A matmul kernel against the reference of its group.
   *
   * @param percent {@code 100 * cublasSeconds / medianSeconds}; empty when either is missing or invalid
   * @param note why the percentage is empty, or empty text
   */
  public record Row(String kernel, String group, double medianSeconds, OptionalDouble percent, String note) {}

  /** One row per matmul result (the reference itself at 100%), in input order. */
  public static List<Row> of(List<Timed> results) {
    Map<String, Timed> references = new LinkedHashMap<>();
    for (Timed t : results) {
      if (t.kernel().equals(Matmul.Variant.CUBLAS.kernel())) {
        references.merge(t.group(), t, (old, now) -> old.valid() ? old : now);
      }
    }
    List<Row> rows = new ArrayList<>();
    for (Timed t : results) {
      if (!t.kernel().startsWith(Matmul.NAME + "-")) {
        continue;
      }
      Timed reference = references.get(t.group());
      if (!t.valid()) {
        rows.add(new Row(t.kernel(), t.group(), t.medianSeconds(), OptionalDouble.empty(), "invalid result"));
      } else if (reference == null) {
        rows.add(new Row(t.kernel(), t.group(), t.medianSeconds(), OptionalDouble.empty(), "no cuBLAS result in this group"));
      } else if (!reference.valid()) {
        rows.add(new Row(t.kernel(), t.group(), t.medianSeconds(), OptionalDouble.empty(), "cuBLAS result invalid or unavailable"));
      } else {
        rows.add(new Row(t.kernel(), t.group(), t.medianSeconds(),
            OptionalDouble.of(100 * reference.medianSeconds() / t.medianSeconds()), ""));
      }
    }
    return rows;
  }

  /** Rows as aligned text lines, for example {@code matmul-naive  h100 n=4096  312.500 ms    1.3% of cuBLAS}. */
  public static List<String> format(List<Row> rows) {
    int kernelWidth = rows.stream().mapToInt(r -> r.kernel().length()).max().orElse(0);
    int groupWidth = rows.stream().mapToInt(r -> r.group().length()).max().orElse(0);
    String layout = "%-" + kernelWidth + "s  %-" + groupWidth + "s  %12s  %s";
    List<String> lines = new ArrayList<>();
    for (Row r : rows) {
      String time = r.note().equals("invalid result") ? "-" : String.format(Locale.ROOT, "%.3f ms", r.medianSeconds() * 1e3);
      String share = r.percent().isPresent()
          ? String.format(Locale.ROOT, "%6.1f%% of cuBLAS", r.percent().getAsDouble())
          : "     - (" + r.note() + ")";
      lines.add(String.format(Locale.ROOT, layout, r.kernel(), r.group(), time, share));
    }
    return lines;
  }
}
