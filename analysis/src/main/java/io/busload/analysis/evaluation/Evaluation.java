package io.busload.analysis.evaluation;

import io.busload.analysis.evaluation.LabelledSeries.Kind;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;

/** Every detector on the same corpus, scored per series and summed per kind, noise and size. */
public final class Evaluation {

  /** One detector's sums over a group of series. */
  public record Tally(int series, int points, int changes, int detected, int falseAlarms, List<Integer> delays,
      int seriesWithAlarms, List<Integer> firstAlarms) {

    static Tally empty() {
      return new Tally(0, 0, 0, 0, 0, List.of(), 0, List.of());
    }

    Tally plus(Score score, Integer firstAlarm) {
      List<Integer> d = new ArrayList<>(delays);
      d.addAll(score.delays());
      List<Integer> f = new ArrayList<>(firstAlarms);
      if (firstAlarm != null) {
        f.add(firstAlarm);
      }
      return new Tally(series + 1, points + score.points(), changes + score.changes(), detected + score.detected(),
          falseAlarms + score.falseAlarms(), d, seriesWithAlarms + (firstAlarm != null ? 1 : 0), f);
    }

    Tally plus(Tally other) {
      List<Integer> d = new ArrayList<>(delays);
      d.addAll(other.delays);
      List<Integer> f = new ArrayList<>(firstAlarms);
      f.addAll(other.firstAlarms);
      return new Tally(series + other.series, points + other.points, changes + other.changes,
          detected + other.detected, falseAlarms + other.falseAlarms, d, seriesWithAlarms + other.seriesWithAlarms, f);
    }

    public double recall() {
      return changes == 0 ? Double.NaN : (double) detected / changes;
    }

    public double falseAlarmsPer1000() {
      return points == 0 ? Double.NaN : 1000.0 * falseAlarms / points;
    }
  }

  /** The series of one kind, noise and size. */
  public record Cell(Kind kind, double noise, double size, Map<String, Tally> tallies) {}

  /** @param detectors names in column order */
  public record Result(long seed, int perCell, List<String> detectors, List<Cell> cells, long millis) {

    /** One detector's tally over every cell that {@code which} keeps. */
    public Tally total(String detector, Predicate<Cell> which) {
      return cells.stream().filter(which).map(c -> c.tallies().get(detector)).reduce(Tally.empty(), Tally::plus);
    }
  }

  private Evaluation() {}

  /** Detectors named in {@code offline} are scored on located changes, the others on arrival. */
  public static Result run(long seed, int perCell, List<Detector> detectors, List<String> offline) {
    long start = System.nanoTime();
    Map<String, Cell> cells = new LinkedHashMap<>();
    for (LabelledSeries series : Corpus.generate(seed, perCell)) {
      // Steps and drifts go up or down at random and are grouped by size; outliers and modes by their sign too.
      boolean signed = series.kind() == Kind.OUTLIER || series.kind() == Kind.BIMODAL;
      double size = signed ? series.step() : Math.abs(series.step());
      String key = series.kind() + "/" + series.noise() + "/" + size;
      Cell cell = cells.computeIfAbsent(key, k -> new Cell(series.kind(), series.noise(), size, new LinkedHashMap<>()));
      for (Detector detector : detectors) {
        List<Integer> alarms = detector.alarms(series.values());
        Score score = offline.contains(detector.name()) ? Score.located(series, alarms)
            : Score.onArrival(series, alarms);
        Integer first = alarms.stream().filter(t -> t >= series.onset()).findFirst().orElse(null);
        cell.tallies().merge(detector.name(), Tally.empty().plus(score, first), Tally::plus);
      }
    }
    return new Result(seed, perCell, detectors.stream().map(Detector::name).toList(), List.copyOf(cells.values()),
        (System.nanoTime() - start) / 1_000_000);
  }

  /** The report as Markdown: targets first, then the detail behind them. */
  public static String markdown(Result r) {
    StringBuilder md = new StringBuilder();
    Predicate<Cell> bigSteps = c -> c.kind() == Kind.STEP && c.size() >= 3 * c.noise() - 1e-12;
    Predicate<Cell> stationary = c -> c.kind() == Kind.STATIONARY;
    Predicate<Cell> noShift = c -> c.kind() != Kind.STEP && c.kind() != Kind.DRIFT;
    md.append("Corpus seed ").append(r.seed()).append(", ").append(r.perCell())
        .append(" series per cell; evaluated in ").append(r.millis() / 1000.0).append(" s.\n");
    head(md, "Targets", r, "");
    row(md, "recall, steps ≥ 3× the noise (target ≥ 0.95)", r, d -> f2(r.total(d, bigSteps).recall()));
    row(md, "false alarms per 1,000 points, stationary (target ≤ 1)", r,
        d -> f2(r.total(d, stationary).falseAlarmsPer1000()));
    row(md, "precision, every series but drifts", r, d -> {
      Tally t = r.total(d, c -> c.kind() != Kind.DRIFT);
      return f2((double) t.detected() / Math.max(1, t.detected() + t.falseAlarms()));
    });
    row(md, "median detection delay, steps ≥ 3× (values)", r, d -> median(r.total(d, bigSteps).delays()));

    head(md, "Recall by step size in noise sigmas", r, "step / noise", "steps");
    double[][] buckets = {{0, 1}, {1, 3}, {3, 10}, {10, Double.POSITIVE_INFINITY}};
    for (double[] b : buckets) {
      Predicate<Cell> in = c -> c.kind() == Kind.STEP && c.size() / c.noise() >= b[0] - 1e-12
          && c.size() / c.noise() < b[1] - 1e-12;
      String range = b[1] == Double.POSITIVE_INFINITY ? "≥ " + fmt(b[0]) : fmt(b[0]) + " to " + fmt(b[1]);
      row(md, range + "× | " + r.total(r.detectors().getFirst(), in).changes(), r, d -> {
        Tally t = r.total(d, in);
        return f2(t.recall()) + " (delay " + median(t.delays()) + ")";
      });
    }

    head(md, "Steps, cell by cell: recall (median delay in values)", r, "noise", "step", "step / noise");
    cellRows(md, r, c -> c.kind() == Kind.STEP,
        c -> pct(c.noise()) + " | " + pct(c.size()) + " | " + fmt(c.size() / c.noise()) + "×",
        (c, t) -> f2(t.recall()) + " (" + median(t.delays()) + ")");

    head(md, "Series without a level shift: false alarms (per 1,000 points)", r, "series", "noise", "size", "points");
    cellRows(md, r, noShift,
        c -> c.kind().words + " | " + pct(c.noise()) + " | "
            + (c.kind() == Kind.STATIONARY ? "" : (c.size() > 0 ? "+" : "") + pct(c.size())) + " | "
            + c.tallies().get(r.detectors().getFirst()).points(),
        (c, t) -> t.falseAlarms() + " (" + f2(t.falseAlarmsPer1000()) + ")");

    head(md, "Slow drifts (no single change index): series flagged from the onset on, and the drift so far at the "
        + "first alarm (median); false alarms before the onset in brackets", r, "noise", "total drift");
    cellRows(md, r, c -> c.kind() == Kind.DRIFT, c -> pct(c.noise()) + " | " + pct(c.size()), (c, t) -> {
      String drift = t.firstAlarms().isEmpty() ? "" : ", at " + pct(c.size()
          * Math.min(100, medianValue(t.firstAlarms()) - Corpus.DRIFT_ONSET + 1) / 100.0);
      return t.seriesWithAlarms() + "/" + t.series() + drift + " [" + t.falseAlarms() + "]";
    });
    return md.toString();
  }

  private interface Column {
    String cell(String detector);
  }

  /** A section's heading and the head of its table: the given columns, then one per detector. */
  private static void head(StringBuilder md, String title, Result r, String... columns) {
    md.append("\n## ").append(title).append("\n\n|");
    for (String column : columns) {
      md.append(column.isEmpty() ? " |" : " " + column + " |");
    }
    md.append(' ').append(String.join(" | ", r.detectors())).append(" |\n|")
        .append("---|".repeat(columns.length + r.detectors().size())).append('\n');
  }

  /** A row per cell that {@code which} takes: its own columns, then each detector's tally in it. */
  private static void cellRows(StringBuilder md, Result r, Predicate<Cell> which, Function<Cell, String> columns,
      BiFunction<Cell, Tally, String> tally) {
    for (Cell c : r.cells()) {
      if (which.test(c)) {
        row(md, columns.apply(c), r, d -> tally.apply(c, c.tallies().get(d)));
      }
    }
  }

  private static void row(StringBuilder md, String label, Result r, Column column) {
    md.append("| ").append(label).append(" | ");
    for (String d : r.detectors()) {
      md.append(column.cell(d)).append(" | ");
    }
    md.append('\n');
  }

  private static double medianValue(List<Integer> values) {
    List<Integer> sorted = values.stream().sorted().toList();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2.0;
  }

  private static String median(List<Integer> values) {
    return values.isEmpty() ? "-" : fmt(medianValue(values));
  }

  private static String f2(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.2f", v);
  }

  private static String fmt(double v) {
    return v == Math.rint(v) ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.1f", v);
  }

  private static String pct(double fraction) {
    return fmt(100 * fraction) + "%";
  }
}
