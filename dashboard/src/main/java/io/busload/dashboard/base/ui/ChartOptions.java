package io.busload.dashboard.base.ui;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * What every chart of the dashboard has (a title, named axes with units, a legend, tooltips with the exact figure),
 * built once so no view forgets one.
 */
public final class ChartOptions {
  public static final ObjectMapper JSON = new ObjectMapper();
  /** Bandwidth counts useful bytes read plus written (docs/design/invariants.md#bandwidth); the axis says so. */
  public static final String BANDWIDTH_AXIS = "bandwidth (GB/s, useful bytes read + written)";

  private ChartOptions() {}

  public static ObjectNode base(String title, String subtitle) {
    ObjectNode option = JSON.createObjectNode();
    option.putObject("title").put("text", title).put("subtext", subtitle == null ? "" : subtitle);
    option.putObject("legend").put("type", "scroll").put("bottom", 0);
    option.putObject("grid").put("left", 80).put("right", 40).put("top", 80).put("bottom", 80);
    return option;
  }

  public static ObjectNode axis(ObjectNode option, String which, String type, String name) {
    return option.putObject(which).put("type", type).put("name", name).put("nameLocation", "middle")
        .put("nameGap", which.equals("yAxis") ? 55 : 30);
  }

  /** GB/s to the MB/s, from bytes per second: finer digits are noise at the spreads measured. */
  public static double gigabytes(double bytesPerSecond) {
    return BigDecimal.valueOf(bytesPerSecond / 1e9).setScale(3, RoundingMode.HALF_EVEN).doubleValue();
  }

  public static double round(double value, int decimals) {
    return BigDecimal.valueOf(value).setScale(decimals, RoundingMode.HALF_EVEN).doubleValue();
  }
}
