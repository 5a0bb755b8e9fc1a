package io.busload.agent.crosscheck;

import io.busload.agent.report.Csv;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Busload's JCuda medians beside the native harness's for the same fatbin entry points ("within 1%").
 * Joins the agent's CSV ({@code ./busload run --format csv}: kernel, params, valid, medianSeconds) with the
 * harness's ({@code kernel,params,median_s}) on (kernel, params).
 *
 * <p>Run: {@code java -cp agent.jar:lib/* io.busload.agent.crosscheck.NativeComparison agent.csv native.csv [more.csv]};
 * exit 1 when a row is off by more than the tolerance or has no partner.
 *
 * <p>With more than one native CSV the native median of a kernel is the mean of the runs' medians. The GPU scripts
 * time the harness once before and once after the agent's suite (bracketing): a GPU that warms or slows down over
 * the minutes between two runs drifts by about the same amount at the agent's run in between, and the mean cancels
 * a linear drift. The H100 run of 2026-11-22 (one native run after the suite) had matmul-cublas 1.5% and
 * particles-soa 1.1% off, while the same fatbin on an H200 was within 0.2%. Each row also prints the runs'
 * disagreement ({@link Row#nativeDrift()}) so the reader can see how stable the native reference itself was.
 */
public final class NativeComparison {
  /** JCuda may differ from native CUDA C++ by this fraction of the native median. */
  public static final double TOLERANCE = 0.01;

  /**
   * One kernel: {@code ratio} = Busload median / native median.
   *
   * @param note why there is no ratio (no native row, invalid in Busload), else empty
   */
  public record Row(String kernel, String params, double busloadSeconds, double nativeSeconds, String note,
      List<Double> nativeRuns) implements MedianRatio {
    public Row(String kernel, String params, double busloadSeconds, double nativeSeconds, String note) {
      this(kernel, params, busloadSeconds, nativeSeconds, note, List.of(nativeSeconds));
    }

    /** (largest - smallest) / mean of the native runs' medians: 0 with one run. */
    public double nativeDrift() {
      double max = nativeRuns.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
      double min = nativeRuns.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
      return (max - min) / nativeSeconds;
    }

    @Override
    public double ratio() {
      return busloadSeconds / nativeSeconds;
    }

    @Override
    public double tolerance() {
      return TOLERANCE;
    }
  }

  private NativeComparison() {}

  /** Every row of the agent's CSV in its order, joined with the harness's medians. */
  public static List<Row> join(String agentCsv, String nativeCsv) {
    return join(agentCsv, List.of(nativeCsv));
  }

  /** As {@link #join(String, String)}, the native median being the mean over the runs that have the kernel. */
  public static List<Row> join(String agentCsv, List<String> nativeCsvs) {
    List<List<String>> agent = Csv.parse(agentCsv);
    if (agent.isEmpty() || nativeCsvs.isEmpty()) {
      throw new IllegalArgumentException("compare: " + (agent.isEmpty() ? "the agent's" : "the native") + " CSV is empty");
    }
    Map<String, List<Double>> nativeRuns = new LinkedHashMap<>();
    for (String nativeCsv : nativeCsvs) {
      List<List<String>> harness = Csv.parse(nativeCsv);
      if (harness.isEmpty()) {
        throw new IllegalArgumentException("compare: the native CSV is empty");
      }
      List<String> h = harness.getFirst();
      int nk = Csv.column(h, "kernel", "native CSV");
      int np = Csv.column(h, "params", "native CSV");
      int nm = Csv.column(h, "median_s", "native CSV");
      for (List<String> r : harness.subList(1, harness.size())) {
        nativeRuns.computeIfAbsent(r.get(nk) + "|" + sorted(r.get(np)), k -> new ArrayList<>())
            .add(Double.parseDouble(r.get(nm)));
      }
    }
    List<String> a = agent.getFirst();
    int ak = Csv.column(a, "kernel", "agent CSV");
    int ap = Csv.column(a, "params", "agent CSV");
    int av = Csv.column(a, "valid", "agent CSV");
    int am = Csv.column(a, "medianSeconds", "agent CSV");
    int method = a.indexOf("method");
    List<Row> rows = new ArrayList<>();
    for (List<String> r : agent.subList(1, agent.size())) {
      String kernel = r.get(ak);
      String params = r.get(ap);
      List<Double> runs = nativeRuns.getOrDefault(kernel + "|" + sorted(params), List.of());
      Double nativeMedian = runs.isEmpty() ? null
          : runs.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
      boolean valid = Boolean.parseBoolean(r.get(av));
      double busload = r.get(am).isEmpty() ? 0 : Double.parseDouble(r.get(am));
      String note = "";
      if (!valid || !(busload > 0)) {
        note = "not measured by Busload" + (method >= 0 && !r.get(method).isEmpty() ? ": " + r.get(method) : "");
      } else if (nativeMedian == null) {
        note = "no native row";
      } else if (!(nativeMedian > 0)) {
        note = "native median " + nativeMedian;
      }
      rows.add(new Row(kernel, params, busload, nativeMedian == null ? Double.NaN : nativeMedian, note,
          List.copyOf(runs)));
    }
    return rows;
  }

  /** A markdown table, one row per kernel, then how many are within the tolerance. */
  public static void print(List<Row> rows, PrintWriter out) {
    boolean bracketed = rows.stream().anyMatch(r -> r.nativeRuns().size() > 1);
    if (bracketed) {
      out.println("| kernel | params | Busload (JCuda) us | native us (mean) | native runs us | native drift | ratio"
          + " | within 1% |");
      out.println("| --- | --- | ---: | ---: | --- | ---: | ---: | --- |");
    } else {
      out.println("| kernel | params | Busload (JCuda) us | native us | ratio | within 1% |");
      out.println("| --- | --- | ---: | ---: | ---: | --- |");
    }
    for (Row r : rows) {
      if (r.compared() && bracketed) {
        String runs = r.nativeRuns().stream().map(v -> String.format(Locale.ROOT, "%.2f", v * 1e6))
            .collect(java.util.stream.Collectors.joining(" / "));
        out.println(String.format(Locale.ROOT, "| %s | %s | %.2f | %.2f | %s | %.2f%% | %.4f | %s |", r.kernel(),
            r.params(), r.busloadSeconds() * 1e6, r.nativeSeconds() * 1e6, runs, r.nativeDrift() * 100, r.ratio(),
            r.within() ? "yes" : "NO"));
      } else if (r.compared()) {
        out.println(String.format(Locale.ROOT, "| %s | %s | %.2f | %.2f | %.4f | %s |", r.kernel(), r.params(),
            r.busloadSeconds() * 1e6, r.nativeSeconds() * 1e6, r.ratio(), r.within() ? "yes" : "NO"));
      } else {
        out.println("| " + r.kernel() + " | " + r.params() + " | | | | " + r.note().replace('|', '/') + " |");
      }
    }
    long compared = rows.stream().filter(Row::compared).count();
    long within = rows.stream().filter(Row::within).count();
    out.println(String.format(Locale.ROOT, "%d of %d compared kernels within %.0f%% (%d rows not compared)", within,
        compared, TOLERANCE * 100, rows.size() - compared));
    out.flush();
  }

  public static void main(String[] args) throws IOException {
    if (args.length < 2) {
      System.err.println("usage: NativeComparison agent.csv native.csv [native-after.csv ...]");
      System.exit(2);
    }
    List<String> natives = new ArrayList<>();
    for (int i = 1; i < args.length; i++) {
      natives.add(Files.readString(Path.of(args[i])));
    }
    List<Row> rows = join(Files.readString(Path.of(args[0])), natives);
    print(rows, new PrintWriter(System.out, true));
    boolean ok = rows.stream().filter(Row::compared).allMatch(Row::within)
        && rows.stream().noneMatch(r -> r.note().equals("no native row"));
    System.exit(ok ? 0 : 1);
  }

  /**
   * The plan writes a case's params in axis order ({@code stride=1;size=...}), the agent's CSV sorted by name
   * ({@code size=...;stride=1}); found on the first H200 run, where 44 rows found no native partner.
   */
  static String sorted(String params) {
    return java.util.Arrays.stream(params.split(";")).sorted().collect(java.util.stream.Collectors.joining(";"));
  }
}
