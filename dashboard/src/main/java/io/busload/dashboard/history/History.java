package io.busload.dashboard.history;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.busload.dashboard.base.ui.ChartOptions;
import io.busload.dashboard.coordinator.Annotations;
import io.busload.dashboard.coordinator.Change;
import io.busload.dashboard.coordinator.HistoryPoint;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** A kernel's bandwidth over time, one line per device, with its regressions and improvements marked. */
public final class History {
  private History() {}

  /** Parameters as the coordinator's {@code params} filter writes them: sorted by name, {@code a=1;b=2}. */
  public static String params(Map<String, Object> params) {
    return new TreeMap<>(params).entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
        .collect(Collectors.joining(";"));
  }

  /** The environment change behind a change, in words: {@code driverVersion 570.1 -> 580.2; ...}. */
  public static String environment(Change change) {
    if (change.environmentDiff().isEmpty()) {
      return "no environment change recorded";
    }
    return new TreeMap<>(change.environmentDiff()).entrySet().stream()
        .map(e -> e.getKey() + " " + e.getValue().before() + " -> " + e.getValue().after())
        .collect(Collectors.joining("; "));
  }

  public static String describe(Change change) {
    return change.deviceId() + ": " + (change.regression() ? "regression " : "improvement ")
        + String.format("%+.1f%%", change.changeFraction() * 100) + " against a median of "
        + ChartOptions.gigabytes(change.baselineMedian()) + " GB/s; " + environment(change);
  }

  public static ObjectNode option(String kernel, String params, List<HistoryPoint> points, List<Change> changes) {
    return option(kernel, params, points, changes, List.of());
  }

  /**
   * With the verdicts' annotations on each device's line: a solid vertical line where E-Divisive puts a change point of
   * the whole history, a dashed grey one where an operator accepted a change (the baseline restarts there).
   */
  public static ObjectNode option(String kernel, String params, List<HistoryPoint> points, List<Change> changes,
      List<Annotations> annotations) {
    ObjectNode option = ChartOptions.base("Bandwidth over time: " + kernel, params);
    option.putObject("tooltip").put("trigger", "item").put("formatter", "{a}<br/>{@[0]}: <b>{@[1]} GB/s</b>");
    ChartOptions.axis(option, "xAxis", "time", "measured at (UTC)");
    ChartOptions.axis(option, "yAxis", "value", ChartOptions.BANDWIDTH_AXIS).put("scale", true);
    ArrayNode series = option.putArray("series");
    Map<String, List<HistoryPoint>> byDevice = points.stream()
        .collect(Collectors.groupingBy(HistoryPoint::deviceId, TreeMap::new, Collectors.toList()));
    // Two hosts may give one device id (both lent machines were called "vm"): one line per model then, so an
    // H100 and an H200 are never drawn as one device that got faster.
    Map<String, List<HistoryPoint>> lines = new java.util.LinkedHashMap<>();
    byDevice.forEach((device, rows) -> {
      Map<String, List<HistoryPoint>> byModel = rows.stream()
          .collect(Collectors.groupingBy(HistoryPoint::model, TreeMap::new, Collectors.toList()));
      byModel.forEach((model, modelRows) -> lines.put(byModel.size() == 1 ? device : device + " " + model, modelRows));
    });
    lines.forEach((lineId, rows) -> {
      String device = rows.getFirst().deviceId();
      // A year of nightly points per line: symbols only where they can be told apart, and ECharts thins a line
      // wider than the chart's pixels (largest-triangle sampling keeps the peaks and dips a regression shows).
      ObjectNode line = series.addObject().put("id", lineId).put("type", "line")
          .put("showSymbol", rows.size() <= 200).put("sampling", "lttb")
          .put("name", rows.getFirst().model() + " (" + device + ")" + pushed(rows));
      ArrayNode data = line.putArray("data");
      rows.stream().sorted(Comparator.comparing(HistoryPoint::measuredAt))
          .forEach(p -> data.addArray().add(p.measuredAt().toString()).add(ChartOptions.gigabytes(p.bandwidth())));
      annotations.stream().filter(a -> a.deviceId().equals(device)).findFirst().ifPresent(a -> annotate(line, a));
    });
    marks(series, "regressions", "#d32f2f", "pin", changes.stream().filter(Change::regression).toList());
    marks(series, "improvements", "#2e7d32", "triangle",
        changes.stream().filter(c -> !c.regression()).toList());
    return option;
  }

  private static void annotate(ObjectNode line, Annotations a) {
    if (a.changePoints().isEmpty() && a.accepted().isEmpty()) {
      return;
    }
    ObjectNode markLine = line.putObject("markLine").put("symbol", "none").put("silent", false);
    ArrayNode data = markLine.putArray("data");
    for (Annotations.ChangePoint c : a.changePoints()) {
      ObjectNode mark = data.addObject().put("xAxis", c.measuredAt().toString())
          .put("name", "change point " + String.format(java.util.Locale.ROOT, "%+.1f%%", 100 * c.relativeShift())
              + " (" + ChartOptions.gigabytes(c.before()) + " → " + ChartOptions.gigabytes(c.after()) + " GB/s)");
      mark.putObject("lineStyle").put("color", "#6a1b9a").put("type", "solid").put("width", 2);
      mark.putObject("label").put("formatter", "{b}").put("position", "insideEndTop");
    }
    for (Annotations.Accepted m : a.accepted()) {
      ObjectNode mark = data.addObject().put("xAxis", m.from().toString())
          .put("name", "accepted by " + m.acceptedBy() + ": " + m.reason());
      mark.putObject("lineStyle").put("color", "#757575").put("type", "dashed").put("width", 2);
      mark.putObject("label").put("formatter", "{b}").put("position", "insideStartTop");
    }
  }

  /**
   * How much of a line came by push, and which other tools measured it: said in its name, so the legend and
   * tooltips tell.
   */
  static String pushed(List<HistoryPoint> rows) {
    long pushed = rows.stream().filter(HistoryPoint::pushed).count();
    String tools = rows.stream().map(HistoryPoint::measuredBy).filter(java.util.Objects::nonNull).distinct().sorted()
        .collect(Collectors.joining(", "));
    return (pushed == 0 ? "" : pushed == rows.size() ? ", pushed" : ", " + pushed + " of " + rows.size() + " pushed")
        + (tools.isEmpty() ? "" : ", measured by " + tools);
  }

  private static void marks(ArrayNode series, String name, String color, String symbol, List<Change> changes) {
    ObjectNode marks = series.addObject().put("id", name).put("name", name).put("type", "scatter")
        .put("symbol", symbol).put("symbolSize", 22);
    marks.putObject("itemStyle").put("color", color);
    marks.putObject("tooltip").put("formatter", "{b}<br/>{@[0]}: <b>{@[1]} GB/s</b>");
    ArrayNode data = marks.putArray("data");
    for (Change change : changes) {
      ObjectNode point = data.addObject().put("name", describe(change));
      point.putArray("value").add(change.measuredAt().toString()).add(ChartOptions.gigabytes(change.bandwidth()));
    }
  }
}
