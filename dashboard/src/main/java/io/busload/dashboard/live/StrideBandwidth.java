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
 * without a bandwidth (its output check failed) is never charted as a speed (ARCHITECTURE.md, invariants). The
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

    /** One point for a series the chart already has. */
    record Point(String seriesId, double stride, double gigabytesPerSecond) implements Change {}
  }

  private record Series(String id, String name, TreeMap<Double, Double> points) {}

  private String sweepId;
  private Instant newest;
  private final Map<String, Series> series = new LinkedHashMap<>();

  public static double gigabytesPerSecond(double bytesPerSecond) {
    return BigDecimal.valueOf(bytesPerSecond / 1e9).setScale(DECIMALS, RoundingMode.HALF_EVEN).doubleValue();
  }

  /** The stride a result was measured at, when it has a positive numeric {@code stride} parameter. */
  public static OptionalDouble stride(KernelResult result) {
    Object value = result.params().get("stride");
    if (value instanceof Number number && number.doubleValue() > 0) {
      return OptionalDouble.of(number.doubleValue());
    }
    if (value instanceof String text) {
      try {
        double parsed = Double.parseDouble(text);
        return parsed > 0 ? OptionalDouble.of(parsed) : OptionalDouble.empty();
      } catch (NumberFormatException e) {
        return OptionalDouble.empty();
      }
    }
    return OptionalDouble.empty();
  }

  static String seriesId(KernelResult result) {
    return result.device().id() + "|" + result.kernel();
  }

  static String seriesName(KernelResult result) {
    return result.device().name() + " (" + result.device().id() + ") " + result.kernel();
  }

  /** Shows {@code sweepId} with the stored results of it (any order; for one point the newest wins). */
  public void load(String sweepId, List<KernelResult> results) {
    this.sweepId = sweepId;
    this.newest = null;
    series.clear();
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
    OptionalDouble stride = stride(result);
    if (stride.isEmpty()) {
      return new Change.Ignored("no positive numeric stride parameter");
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
    String id = seriesId(result);
    Series line = series.get(id);
    boolean added = line == null;
    if (added) {
      line = new Series(id, seriesName(result), new TreeMap<>());
      series.put(id, line);
    }
    line.points().put(stride.getAsDouble(), gbps);
    return reset || added ? new Change.Redraw() : new Change.Point(id, stride.getAsDouble(), gbps);
  }

  public String sweepId() {
    return sweepId;
  }

  public int pointCount() {
    return series.values().stream().mapToInt(s -> s.points().size()).sum();
  }

  /** The whole chart as an ECharts option: title, named axes with units, legend, exact figures in tooltips. */
  public ObjectNode option() {
    ObjectNode option = JSON.createObjectNode();
    option.putObject("title")
        .put("text", "Bandwidth against stride")
        .put("subtext", sweepId == null ? "no sweep yet" : "sweep " + sweepId);
    option.putObject("tooltip")
        .put("trigger", "item")
        .put("formatter", "{a}<br/>stride {@[0]}: <b>{@[1]} GB/s</b>");
    option.putObject("legend").put("type", "scroll").put("bottom", 0);
    option.putObject("grid").put("left", 80).put("right", 40).put("top", 80).put("bottom", 80);
    option.putObject("xAxis")
        .put("type", "log")
        .put("logBase", 2)
        .put("name", "stride (elements)")
        .put("nameLocation", "middle")
        .put("nameGap", 30);
    option.putObject("yAxis")
        .put("type", "value")
        .put("name", "bandwidth (GB/s, useful bytes read + written)")
        .put("nameLocation", "middle")
        .put("nameGap", 55);
    ArrayNode lines = option.putArray("series");
    for (Series line : series.values()) {
      ObjectNode node = lines.addObject()
          .put("id", line.id())
          .put("name", line.name())
          .put("type", "line")
          .put("showSymbol", true);
      ArrayNode data = node.putArray("data");
      line.points().forEach((stride, gbps) -> data.addArray().add(stride).add(gbps));
    }
    return option;
  }
}
