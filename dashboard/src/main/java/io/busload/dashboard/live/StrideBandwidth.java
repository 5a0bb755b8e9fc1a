package io.busload.dashboard.live;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.busload.protocol.KernelResult;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.TreeMap;

/**
 * The chart of one sweep: bandwidth in GB/s against stride, one series per device and kernel, as ECharts option
 * JSON.
 *
 * <p>Results carry bytes per second (SI, STYLE.md habit 4); GB/s exists only here, for people. A result
 * without a bandwidth (its output check failed) is never charted as a speed
 * (docs/design/invariants.md#invalid-results). The
 * chart follows the newest sweep: a result of a newer sweep than the one shown starts the chart afresh.
 */
public final class StrideBandwidth {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** GB/s shown to the MB/s: finer digits are noise at the spreads we measure. */
  private static final int DECIMALS = 3;

  /** What a view must do to show a result. */
  public sealed interface Change {
    /** Nothing to draw; the reason is for logs and tests. */
    record Ignored(String reason) implements Change {}

    /** A new series or a new sweep: send the whole option again. */
    record Redraw() implements Change {}

    /**
     * One point for a series the chart already has, with its spread: the band's lower edge (slowest sample) and
     * its height (fastest minus slowest), both in GB/s.
     */
    record Point(String seriesId, double stride, double gigabytesPerSecond, double bandLow, double bandHeight)
        implements Change {
      /** The series that draws the band's lower edge; its upper edge is stacked on it. */
      public String lowId() {
        return seriesId + LOW;
      }

      public String bandId() {
        return seriesId + BAND;
      }
    }
  }

  private record Series(String id, String name, String deviceId, TreeMap<Double, double[]> points) {}

  /**
   * One model and kernel drawn for all its devices: at each stride, every device's newest bandwidth; the
   * line is their median and the band runs from the slowest device to the fastest.
   */
  private record Aggregate(String id, String name, String model, TreeMap<Double, Map<String, Double>> points) {
    double[] figures(double at) {
      double[] values = points.get(at).values().stream().mapToDouble(Double::doubleValue).sorted().toArray();
      int n = values.length;
      double median = n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
      return new double[] {gigabytesPerSecondRounded(median), values[0], ChartRound.height(values[0], values[n - 1])};
    }
  }

  /**
   * Above this many devices in a sweep, the chart draws one line per model and kernel instead of per device and
   * kernel (thousands of devices reporting). Sixteen device lines, bands and ceilings are about what a
   * legend and a reader can follow; thousands of series would stall the browser on every update.
   */
  public static final int MAX_DEVICE_LINES = 16;

  /** A device's two ceilings in GB/s: memcpy timed in the same sweep (null until seen) and the theoretical peak. */
  private record Ceilings(String deviceName, Double memcpy, double peak) {}

  static final String LOW = "#low";
  static final String BAND = "#band";
  static final String MEMCPY_KERNEL = "memcpy-d2d";

  private final String axisParam;
  private final String title;
  private final String axisName;
  private final boolean logAxis;
  private final Map<String, Ceilings> ceilings = new LinkedHashMap<>();
  /** The x range the ceiling lines were last drawn over; a point beyond it redraws them wider. */
  private double ceilingsFrom = Double.NaN;
  private double ceilingsTo = Double.NaN;
  private String sweepId;
  private Instant newest;
  private final Map<String, Series> series = new LinkedHashMap<>();
  private final Map<String, Aggregate> aggregates = new LinkedHashMap<>();
  /** Devices with a charted point in this sweep: past {@link #MAX_DEVICE_LINES}, the chart aggregates. */
  private final java.util.Set<String> devices = new java.util.HashSet<>();

  /** Bandwidth against stride, on a log-2 axis. */
  public StrideBandwidth() {
    this("stride", "Bandwidth against stride", "stride (elements)", true);
  }

  /** Bandwidth against the numeric parameter {@code axisParam} (offset, say). */
  public StrideBandwidth(String axisParam, String title, String axisName, boolean logAxis) {
    this.axisParam = axisParam;
    this.title = title;
    this.axisName = axisName;
    this.logAxis = logAxis;
  }

  public static double gigabytesPerSecond(double bytesPerSecond) {
    return BigDecimal.valueOf(bytesPerSecond / 1e9).setScale(DECIMALS, RoundingMode.HALF_EVEN).doubleValue();
  }

  /** The stride a result was measured at, when it has a positive numeric {@code stride} parameter. */
  public static OptionalDouble stride(KernelResult result) {
    return parameter(result, "stride", true);
  }

  /** A numeric parameter of a result; positive only when {@code positive}. */
  static OptionalDouble parameter(KernelResult result, String name, boolean positive) {
    Object value = result.params().get(name);
    if (value instanceof Number number && (!positive || number.doubleValue() > 0) && number.doubleValue() >= 0) {
      return OptionalDouble.of(number.doubleValue());
    }
    if (value instanceof String text) {
      try {
        double parsed = Double.parseDouble(text);
        return parsed > 0 || (!positive && parsed == 0) ? OptionalDouble.of(parsed) : OptionalDouble.empty();
      } catch (NumberFormatException e) {
        return OptionalDouble.empty();
      }
    }
    return OptionalDouble.empty();
  }

  static String seriesId(KernelResult result) {
    return result.device().id() + "|" + result.kernel();
  }

  private static double gigabytesPerSecondRounded(double gbps) {
    return BigDecimal.valueOf(gbps).setScale(DECIMALS, RoundingMode.HALF_EVEN).doubleValue();
  }

  /** True once the sweep has more devices than {@link #MAX_DEVICE_LINES}: lines are per model, not per device. */
  public boolean aggregated() {
    return devices.size() > MAX_DEVICE_LINES;
  }

  static String seriesName(KernelResult result) {
    return result.device().name() + " (" + result.device().id() + ") " + result.kernel();
  }

  /** Shows {@code sweepId} with the stored results of it (any order; for one point the newest wins). */
  public void load(String sweepId, List<KernelResult> results) {
    this.sweepId = sweepId;
    this.newest = null;
    series.clear();
    aggregates.clear();
    devices.clear();
    ceilings.clear();
    ceilingsFrom = Double.NaN;
    ceilingsTo = Double.NaN;
    List<KernelResult> ordered = new ArrayList<>(results);
    ordered.sort(Comparator.comparing(KernelResult::measuredAt, Comparator.nullsFirst(Comparator.naturalOrder())));
    ordered.forEach(this::add);
  }

  /** Shows a sweep that has no results yet (one just started here); a no-op when it is already shown. */
  public boolean follow(String newSweepId) {
    if (Objects.equals(sweepId, newSweepId)) {
      return false;
    }
    load(newSweepId, List.of());
    return true;
  }

  public Change add(KernelResult result) {
    if (result.bandwidth() == null) {
      return new Change.Ignored("no bandwidth: the result is invalid");
    }
    boolean memcpy = MEMCPY_KERNEL.equals(result.kernel());
    OptionalDouble stride = parameter(result, axisParam, logAxis);
    if (stride.isEmpty() && !memcpy) {
      return new Change.Ignored("no " + (logAxis ? "positive " : "") + "numeric " + axisParam + " parameter");
    }
    boolean reset = false;
    if (sweepId == null && series.isEmpty()) {
      sweepId = result.sweepId();
    } else if (!Objects.equals(sweepId, result.sweepId())) {
      if (newest != null && result.measuredAt() != null && result.measuredAt().isBefore(newest)) {
        return new Change.Ignored("from sweep " + result.sweepId() + ", older than the one shown");
      }
      load(result.sweepId(), List.of());
      reset = true;
    }
    if (result.measuredAt() != null && (newest == null || result.measuredAt().isAfter(newest))) {
      newest = result.measuredAt();
    }
    double gbps = gigabytesPerSecond(result.bandwidth());
    String device = result.device().id();
    Ceilings known = ceilings.get(device);
    double peak = gigabytesPerSecond(result.device().theoreticalPeakBytesPerSecond());
    Ceilings now = new Ceilings(result.device().name(),
        memcpy ? Double.valueOf(gbps) : known == null ? null : known.memcpy(), peak);
    boolean newCeiling = !now.equals(known);
    ceilings.put(device, now);
    if (aggregated() && newCeiling) {
      // A device's ceiling joins its model's (the median memcpy, the peak) at the next redraw; one result a device
      // redrawing the chart is what thousands of devices cannot afford.
      newCeiling = known == null && ceilings.values().stream().filter(c -> c.deviceName().equals(now.deviceName()))
          .count() == 1;
    }
    if (memcpy) {
      return newCeiling || reset ? new Change.Redraw() : new Change.Ignored("memcpy ceiling unchanged");
    }
    // Spread as bandwidth: the fastest sample (min seconds) and the slowest (max seconds).
    double low = result.maxSeconds() > 0 ? gigabytesPerSecond(result.bytes() / result.maxSeconds()) : gbps;
    double high = result.minSeconds() > 0 ? gigabytesPerSecond(result.bytes() / result.minSeconds()) : gbps;
    double height = ChartRound.height(low, high);
    String id = seriesId(result);
    Series line = series.get(id);
    boolean added = line == null;
    if (added) {
      line = new Series(id, seriesName(result), device, new TreeMap<>());
      series.put(id, line);
    }
    line.points().put(stride.getAsDouble(), new double[] {gbps, low, height});
    boolean wasAggregated = aggregated();
    devices.add(device);
    String model = result.device().name() == null ? device : result.device().name();
    String aggregateId = "model|" + model + "|" + result.kernel();
    Aggregate group = aggregates.get(aggregateId);
    boolean newGroup = group == null;
    if (newGroup) {
      group = new Aggregate(aggregateId, model + ", every device (median; band: slowest to fastest) "
          + result.kernel(), model, new TreeMap<>());
      aggregates.put(aggregateId, group);
    }
    group.points().computeIfAbsent(stride.getAsDouble(), k -> new LinkedHashMap<>()).put(device, gbps);
    boolean outside = !Double.isNaN(ceilingsTo)
        && (stride.getAsDouble() < ceilingsFrom || stride.getAsDouble() > ceilingsTo);
    if (aggregated()) {
      if (!wasAggregated || newGroup || newCeiling || outside || reset) {
        return new Change.Redraw();
      }
      double[] figures = group.figures(stride.getAsDouble());
      return new Change.Point(aggregateId, stride.getAsDouble(), figures[0], figures[1], figures[2]);
    }
    return reset || added || newCeiling || outside ? new Change.Redraw()
        : new Change.Point(id, stride.getAsDouble(), gbps, low, height);
  }

  /** GB/s differences rounded like the figures, so a band never shows float noise. */
  private static final class ChartRound {
    static double height(double low, double high) {
      return BigDecimal.valueOf(Math.max(0, high - low)).setScale(DECIMALS, RoundingMode.HALF_EVEN).doubleValue();
    }
  }

  public String sweepId() {
    return sweepId;
  }

  public int pointCount() {
    return series.values().stream().mapToInt(s -> s.points().size()).sum();
  }

  /** Results of a kernel measured at an axis value, for a caller that wants the main lines only. */
  public static boolean isMainSeries(String seriesId) {
    return !seriesId.endsWith(LOW) && !seriesId.endsWith(BAND) && !seriesId.startsWith("ceiling|");
  }

  /**
   * The whole chart as an ECharts option: title, named axes with units, legend, exact figures in tooltips; per
   * device and kernel a line with its spread as a band (same legend entry), per device both ceilings as dashed
   * lines.
   */
  public ObjectNode option() {
    ObjectNode option = JSON.createObjectNode();
    if (aggregated()) {
      // Redrawn several times a second while thousands of devices report: an animated transition for each redraw
      // kept the browser's main thread busy (ScaleViewsBrowserTest's long tasks).
      option.put("animation", false);
    }
    option.putObject("title")
        .put("text", title)
        .put("subtext", sweepId == null ? "no sweep yet" : "sweep " + sweepId);
    option.putObject("tooltip")
        .put("trigger", "item")
        .put("formatter", "{a}<br/>" + axisParam + " {@[0]}: <b>{@[1]} GB/s</b>");
    option.putObject("legend").put("type", "scroll").put("bottom", 0);
    option.putObject("grid").put("left", 80).put("right", 40).put("top", 80).put("bottom", 80);
    ObjectNode x = option.putObject("xAxis")
        .put("type", logAxis ? "log" : "value")
        .put("name", axisName)
        .put("nameLocation", "middle")
        .put("nameGap", 30);
    if (logAxis) {
      x.put("logBase", 2);
    }
    option.putObject("yAxis")
        .put("type", "value")
        .put("name", "bandwidth (GB/s, useful bytes read + written)")
        .put("nameLocation", "middle")
        .put("nameGap", 55);
    ArrayNode lines = option.putArray("series");
    List<Series> drawn = aggregated() ? aggregates.values().stream().map(a -> {
      TreeMap<Double, double[]> points = new TreeMap<>();
      a.points().keySet().forEach(at -> points.put(at, a.figures(at)));
      return new Series(a.id(), a.name(), null, points);
    }).toList() : List.copyOf(series.values());
    for (Series line : drawn) {
      ObjectNode node = lines.addObject()
          .put("id", line.id())
          .put("name", line.name())
          .put("type", "line")
          .put("showSymbol", true);
      ArrayNode data = node.putArray("data");
      line.points().forEach((at, figures) -> data.addArray().add(at).add(figures[0]));
    }
    for (Series line : drawn) {
      band(lines, line, line.id() + LOW, 1, false);
      band(lines, line, line.id() + BAND, 2, true);
    }
    // Ceilings span the suite's usual range (strides 1 to 32, offsets 0 to 32) or the points, whichever is wider.
    double from = Math.min(logAxis ? 1 : 0,
        series.values().stream().mapToDouble(s -> s.points().firstKey()).min().orElse(logAxis ? 1 : 0));
    double to = Math.max(32, series.values().stream().mapToDouble(s -> s.points().lastKey()).max().orElse(32));
    ceilingsFrom = from;
    ceilingsTo = to;
    if (aggregated()) {
      modelCeilings(lines, from, to);
      return option;
    }
    ceilings.forEach((device, c) -> {
      if (c.memcpy() != null) {
        ceiling(lines, "ceiling|memcpy|" + device, "memcpy ceiling, " + c.deviceName() + " (" + device + ")",
            c.memcpy(), from, to);
      }
      if (c.peak() > 0) {
        ceiling(lines, "ceiling|peak|" + device, "theoretical peak, " + c.deviceName() + " (" + device + ")",
            c.peak(), from, to);
      }
    });
    return option;
  }

  /** Per model: the median of its devices' memcpy ceilings and the highest theoretical peak. */
  private void modelCeilings(ArrayNode lines, double from, double to) {
    Map<String, List<Ceilings>> byModel = new TreeMap<>();
    ceilings.values().forEach(c -> byModel.computeIfAbsent(c.deviceName(), k -> new ArrayList<>()).add(c));
    byModel.forEach((model, list) -> {
      double[] memcpy = list.stream().filter(c -> c.memcpy() != null).mapToDouble(Ceilings::memcpy).sorted().toArray();
      if (memcpy.length > 0) {
        ceiling(lines, "ceiling|memcpy|model|" + model, "memcpy ceiling, " + model + " (median of " + memcpy.length
            + " devices)", memcpy[memcpy.length / 2], from, to);
      }
      double peak = list.stream().mapToDouble(Ceilings::peak).max().orElse(0);
      if (peak > 0) {
        ceiling(lines, "ceiling|peak|model|" + model, "theoretical peak, " + model, peak, from, to);
      }
    });
  }

  /** Half of a band: the lower edge (invisible) or the height stacked on it (filled); no tooltip of its own. */
  private static void band(ArrayNode lines, Series line, String id, int figure, boolean filled) {
    ObjectNode node = lines.addObject()
        .put("id", id)
        .put("name", line.name())
        .put("type", "line")
        .put("stack", line.id())
        .put("showSymbol", false)
        .put("silent", true);
    node.putObject("lineStyle").put("opacity", 0);
    node.putObject("tooltip").put("show", false);
    if (filled) {
      node.putObject("areaStyle").put("opacity", 0.2);
    }
    ArrayNode data = node.putArray("data");
    line.points().forEach((at, figures) -> data.addArray().add(at).add(figures[figure]));
  }

  private static void ceiling(ArrayNode lines, String id, String name, double gbps, double from, double to) {
    ObjectNode node = lines.addObject()
        .put("id", id)
        .put("name", name)
        .put("type", "line")
        .put("showSymbol", false);
    node.putObject("lineStyle").put("type", "dashed").put("width", 1);
    node.putObject("tooltip").put("formatter", "{a}: <b>{@[1]} GB/s</b>");
    ArrayNode data = node.putArray("data");
    data.addArray().add(from).add(gbps);
    data.addArray().add(to).add(gbps);
  }
}
