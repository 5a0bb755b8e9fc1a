package io.busload.dashboard.run;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.busload.dashboard.base.ui.ChartOptions;
import io.busload.dashboard.history.History;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.KernelResult;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One run's results: each kernel's samples as a box plot of bandwidth, and the device it ran on in words. */
public final class RunDetail {
  private RunDetail() {}

  public static String label(KernelResult result) {
    return result.kernel() + " " + History.params(result.params());
  }

  /** Results in the order the catalog ran them (measuredAt), oldest first. */
  public static List<KernelResult> ordered(List<KernelResult> results) {
    List<KernelResult> ordered = new ArrayList<>(results);
    ordered.sort(Comparator.comparing(KernelResult::measuredAt, Comparator.nullsLast(Comparator.naturalOrder())));
    return ordered;
  }

  /**
   * min, first quartile, median, third quartile, max of the samples as bandwidth in GB/s (useful bytes over the
   * seconds of one launch), linear interpolation between order statistics.
   */
  public static double[] box(KernelResult result) {
    double[] gbps = result.samples().stream().filter(s -> s > 0)
        .mapToDouble(s -> ChartOptions.gigabytes(result.bytes() / s)).sorted().toArray();
    if (gbps.length == 0) {
      return new double[0];
    }
    return new double[] {gbps[0], quantile(gbps, 0.25), quantile(gbps, 0.5), quantile(gbps, 0.75),
        gbps[gbps.length - 1]};
  }

  static double quantile(double[] sorted, double q) {
    double at = q * (sorted.length - 1);
    int low = (int) Math.floor(at);
    int high = (int) Math.ceil(at);
    return ChartOptions.round(sorted[low] + (sorted[high] - sorted[low]) * (at - low), 3);
  }

  /** Box plot of every valid result's samples; an invalid result has no speed to show and is left out. */
  public static ObjectNode option(String runId, List<KernelResult> results) {
    List<KernelResult> valid = ordered(results).stream().filter(r -> r.valid() && !r.samples().isEmpty()).toList();
    ObjectNode option = ChartOptions.base("Samples per kernel (bandwidth of each sample)", "run " + runId);
    option.putObject("tooltip").put("trigger", "item").put("formatter",
        "{b}<br/>max {@[5]} GB/s<br/>Q3 {@[4]} GB/s<br/>median <b>{@[3]} GB/s</b><br/>Q1 {@[2]} GB/s<br/>"
            + "min {@[1]} GB/s");
    option.with("grid").put("bottom", 200);
    ObjectNode x = ChartOptions.axis(option, "xAxis", "category", "kernel and parameters");
    x.put("nameGap", 140);
    x.putObject("axisLabel").put("rotate", 30).put("interval", 0);
    ArrayNode categories = x.putArray("data");
    ChartOptions.axis(option, "yAxis", "value", ChartOptions.BANDWIDTH_AXIS).put("scale", true);
    ObjectNode series = option.putArray("series").addObject().put("id", "samples").put("type", "boxplot")
        .put("name", "samples");
    ArrayNode data = series.putArray("data");
    for (KernelResult r : valid) {
      categories.add(label(r));
      ArrayNode box = data.addArray();
      for (double v : box(r)) {
        box.add(v);
      }
    }
    return option;
  }

  /** The device's fingerprint and what was measured with, as name/value rows. */
  public static Map<String, String> fingerprint(KernelResult result) {
    DeviceInfo d = result.device();
    Map<String, String> rows = new LinkedHashMap<>();
    rows.put("fingerprint", d.fingerprint());
    rows.put("device", d.id() + " (" + d.kind() + ")");
    rows.put("name", d.name());
    rows.put("CUDA UUID", String.valueOf(d.uuid()));
    rows.put("compute capability", String.valueOf(d.computeCapability()));
    rows.put("multiprocessors", String.valueOf(d.multiprocessors()));
    rows.put("L2", d.l2Bytes() / (1 << 20) + " MiB");
    rows.put("memory", d.memoryBytes() / (1L << 30) + " GiB");
    rows.put("memory clock", d.memoryClockHz() / 1_000_000 + " MHz");
    rows.put("bus width", d.busWidthBits() + " bit");
    rows.put("theoretical peak", ChartOptions.gigabytes(d.theoreticalPeakBytesPerSecond()) + " GB/s");
    rows.put("driver", d.driverVersion());
    rows.put("agent", result.agentId() + " " + result.agentVersion());
    rows.put("fatbin", result.fatbinHash());
    rows.put("method", result.method());
    return rows;
  }
}
