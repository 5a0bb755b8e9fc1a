package io.busload.agent.crosscheck;

import io.busload.agent.report.Csv;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The fleet adds no measurement error: a sweep that went agent → clustered event bus → coordinator →
 * PostgreSQL → REST export must hold every case of the standalone {@code ./busload run} on the same GPU once, with
 * medians within 1% of it.
 *
 * <p>Both files are the coordinator's CSV columns (the standalone CSV is written by the same {@code CsvPrinter} the
 * REST export matches). A case of the standalone run that the sweep lacks is lost; a result id or a (kernel, params)
 * that appears twice in the sweep is duplicated.
 *
 * <p>Run: {@code java -cp agent.jar:lib/* io.busload.agent.crosscheck.FleetComparison standalone.csv sweep.csv};
 * exit 1 when a case is lost, duplicated or off by more than 1%.
 */
public final class FleetComparison {
  /** The fleet's median may differ from the standalone run's by this fraction of the standalone median. */
  public static final double TOLERANCE = 0.01;

  /**
   * One case: {@code ratio} = fleet median / standalone median; {@code note} says why there is none; {@code
   * tolerance} is the fraction the ratio may differ from 1.
   */
  public record Row(String kernel, String params, double standaloneSeconds, double fleetSeconds, String note,
      double tolerance) implements MedianRatio {
    @Override
    public double ratio() {
      return fleetSeconds / standaloneSeconds;
    }
  }

  /** The rows in the standalone run's order, what the sweep lost and what it held twice. */
  public record Report(List<Row> rows, List<String> lost, List<String> duplicated, int fleetResults,
      double tolerance) {
    public boolean ok() {
      return lost.isEmpty() && duplicated.isEmpty() && rows.stream().allMatch(r -> !r.compared() || r.within());
    }
  }

  private FleetComparison() {}

  /** {@link #compare(String, String, double)} within {@link #TOLERANCE}. */
  public static Report compare(String standaloneCsv, String fleetCsv) {
    return compare(standaloneCsv, fleetCsv, TOLERANCE);
  }

  /**
   * Each standalone case against the fleet's, medians within {@code tolerance} (a fraction: 0.01 is 1%). A looser one
   * is for a device whose timings vary more than a GPU's from run to run (the CPU of a shared machine), where what is
   * checked is that nothing is lost or duplicated.
   */
  public static Report compare(String standaloneCsv, String fleetCsv, double tolerance) {
    if (!(tolerance >= 0)) {
      throw new IllegalArgumentException("tolerance: a fraction of at least 0, not " + tolerance);
    }
    List<List<String>> standalone = Csv.parse(standaloneCsv);
    List<List<String>> fleet = Csv.parse(fleetCsv);
    if (standalone.size() < 2 || fleet.isEmpty()) {
      throw new IllegalArgumentException("compare: the " + (standalone.size() < 2 ? "standalone" : "fleet")
          + " CSV has no results");
    }
    Map<String, Case> fleetCases = new LinkedHashMap<>();
    List<String> duplicated = new ArrayList<>();
    Set<String> ids = new HashSet<>();
    for (Case c : cases(fleet, "fleet CSV")) {
      if (!ids.add(c.id())) {
        duplicated.add("id " + c.id());
      }
      if (fleetCases.putIfAbsent(c.key(), c) != null) {
        duplicated.add(c.key());
      }
    }
    List<Row> rows = new ArrayList<>();
    List<String> lost = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (Case alone : cases(standalone, "standalone CSV")) {
      seen.add(alone.key());
      Case inFleet = fleetCases.get(alone.key());
      if (inFleet == null) {
        lost.add(alone.key());
        rows.add(new Row(alone.kernel(), alone.params(), alone.medianSeconds(), Double.NaN, "not in the sweep",
            tolerance));
        continue;
      }
      String note = "";
      if (!alone.measured()) {
        note = "not measured standalone";
      } else if (!inFleet.measured()) {
        note = "not measured in the fleet";
      }
      rows.add(new Row(alone.kernel(), alone.params(), alone.medianSeconds(), inFleet.medianSeconds(), note,
          tolerance));
    }
    for (String key : fleetCases.keySet()) {
      if (!seen.contains(key)) {
        duplicated.add(key + " (not in the standalone run)");
      }
    }
    return new Report(rows, lost, duplicated, fleet.size() - 1, tolerance);
  }

  /** One result of a Busload CSV (the standalone run's or the sweep's export), by the columns compared. */
  private record Case(String id, String kernel, String params, boolean valid, double medianSeconds) {
    /** The case whatever order its params were written in. */
    String key() {
      return kernel + " " + NativeComparison.sorted(params);
    }

    boolean measured() {
      return valid && medianSeconds > 0;
    }
  }

  /** The results of {@code csv}, its header first; IllegalArgumentException naming {@code what} lacks a column. */
  private static List<Case> cases(List<List<String>> csv, String what) {
    List<String> header = csv.getFirst();
    int id = Csv.column(header, "id", what);
    int kernel = Csv.column(header, "kernel", what);
    int params = Csv.column(header, "params", what);
    int valid = Csv.column(header, "valid", what);
    int median = Csv.column(header, "medianSeconds", what);
    return csv.subList(1, csv.size()).stream().map(r -> new Case(r.get(id), r.get(kernel), r.get(params),
        Boolean.parseBoolean(r.get(valid)), seconds(r.get(median)))).toList();
  }

  private static double seconds(String text) {
    return text.isEmpty() ? 0 : Double.parseDouble(text);
  }

  /** A markdown table, then one line with the counts that decide. */
  public static void print(Report report, PrintWriter out) {
    out.println("| kernel | params | standalone us | fleet us | fleet / standalone | within "
        + percent(report.tolerance()) + "% |");
    out.println("| --- | --- | ---: | ---: | ---: | --- |");
    for (Row r : report.rows()) {
      if (r.compared()) {
        out.println(String.format(Locale.ROOT, "| %s | %s | %.2f | %.2f | %.4f | %s |", r.kernel(), r.params(),
            r.standaloneSeconds() * 1e6, r.fleetSeconds() * 1e6, r.ratio(), r.within() ? "yes" : "NO"));
      } else {
        out.println("| " + r.kernel() + " | " + r.params() + " | | | | " + r.note() + " |");
      }
    }
    long compared = report.rows().stream().filter(Row::compared).count();
    long within = report.rows().stream().filter(Row::within).count();
    double worst = report.rows().stream().filter(Row::compared).mapToDouble(r -> Math.abs(r.ratio() - 1)).max()
        .orElse(Double.NaN);
    for (String key : report.lost()) {
      out.println("lost: " + key);
    }
    for (String key : report.duplicated()) {
      out.println("duplicated: " + key);
    }
    out.println(String.format(Locale.ROOT,
        "%d of %d compared kernels within %s%% (largest difference %.2f%%); %d standalone cases, %d fleet results,"
            + " %d lost, %d duplicated", within, compared, percent(report.tolerance()), worst * 100,
        report.rows().size(), report.fleetResults(), report.lost().size(), report.duplicated().size()));
    out.flush();
  }

  /** 1 for 0.01, 2.5 for 0.025: the tolerance as the table and the count line name it. */
  private static String percent(double tolerance) {
    return java.math.BigDecimal.valueOf(tolerance).movePointRight(2).stripTrailingZeros().toPlainString();
  }

  public static void main(String[] args) throws IOException {
    if (args.length != 2) {
      System.err.println("usage: FleetComparison standalone.csv sweep.csv");
      System.exit(2);
    }
    Report report = compare(Files.readString(Path.of(args[0])), Files.readString(Path.of(args[1])));
    print(report, new PrintWriter(System.out, true));
    System.exit(report.ok() ? 0 : 1);
  }
}
