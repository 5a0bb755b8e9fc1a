package io.busload.dashboard.run;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.busload.dashboard.base.ui.ChartOptions;
import io.busload.dashboard.history.History;
import io.busload.protocol.CacheResidency;
import io.busload.protocol.Clocks;
import io.busload.protocol.Counters;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.KernelResult;
import io.busload.protocol.ResultStatus;
import io.busload.protocol.Sampling;
import io.busload.protocol.StopReason;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One run's results: each kernel's samples as a box plot of bandwidth, the device it ran on in words, and where the
 * run was profiled, each kernel's hardware counters beside its model's prediction. Counters are shown as the agent
 * sent them (ncu's figures); nothing here estimates one.
 */
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
    if (d.topology() != null) {
      var t = d.topology();
      rows.put("PCIe link", t.pcieGeneration() == 0 ? "unknown (" + t.source() + ")"
          : io.busload.dashboard.links.Links.rateLabel(t) + ", " + ChartOptions.gigabytes(t.pcieBytesPerSecond())
              + " GB/s each way; at discovery gen" + t.pcieCurrentGeneration() + " x" + t.pcieCurrentWidth());
      rows.put("NUMA node", t.numaNode() < 0 ? "unknown" : String.valueOf(t.numaNode()));
      rows.put("peers", t.peers().isEmpty() ? "none (the host's only GPU)" : String.join("; ", t.peers().stream()
          .map(p -> "cuda:" + p.ordinal() + " " + p.link() + (p.detail().isEmpty() ? "" : " (" + p.detail() + ")")
              + (p.access() ? ", peer access" : ", no peer access")).toList()));
    }
    rows.put("agent", result.agentId() + " " + result.agentVersion());
    rows.put("fatbin", result.fatbinHash());
    rows.put("method", result.method());
    rows.put("origin", result.origin() == null ? "fleet agent, over the event bus"
        : result.origin().describe() + ", at " + result.origin().pushedAt() + " (push " + result.origin().pushId()
            + ")");
    return rows;
  }

  /** What a result whose agent did not report how it measured shows where its typed method would be. */
  static final String NOT_RECORDED = "not recorded (its agent did not report it)";

  /**
   * How the samples were timed, from the typed fields: warm-up, samples x launches, how many were held
   * behind the blocking kernel, unheld or re-timed after the hold timed out, and why sampling stopped.
   */
  public static String timing(KernelResult r) {
    Sampling s = r.sampling();
    if (s == null) {
      return r.status() == ResultStatus.MEASURED ? NOT_RECORDED : "not timed";
    }
    return "warm-up " + r.warmupLaunches() + " launches; " + s.timedSamples() + " samples x " + r.launchesPerSample()
        + " launches: " + s.heldSamples() + " held, " + s.unheldSamples() + " unheld, " + s.retimedSamples()
        + " re-timed after a hold timed out; stopped: " + stop(s.stopReason())
        + (s.othersBusy().isEmpty() ? "" : "; measured while " + String.join(", ", s.othersBusy()) + " measured too");
  }

  private static String stop(StopReason reason) {
    return switch (reason) {
      case SPREAD_SETTLED -> "spread settled";
      case TIME_CAP -> "time cap";
      case SAMPLE_CAP -> "sample cap";
    };
  }

  /**
   * What the case drew: joules per useful GB and GB/s per watt, derived here from the typed energy, then the average
   * and idle watts and the window. "not read" for a measured result without energy (no counter on its device, or
   * measured before energy was read), never a 0; empty for a case that was not measured.
   */
  public static String energy(KernelResult r) {
    io.busload.protocol.Energy e = r.energy();
    if (e == null) {
      return r.status() == ResultStatus.MEASURED ? "not read" : "";
    }
    Double perGigabyte = e.joulesPerGigabyte(r.bytes());
    Double perWatt = e.gigabytesPerSecondPerWatt(r.bandwidth());
    return String.format(Locale.ROOT, "%s J/GB, %s GB/s per W; %.1f W average, idle %s; %.2f s of %d launches",
        perGigabyte == null ? "-" : String.format(Locale.ROOT, "%.3f", perGigabyte),
        perWatt == null ? "-" : String.format(Locale.ROOT, "%.2f", perWatt), e.averageWatts(),
        e.idleWatts() == null ? "not read" : String.format(Locale.ROOT, "%.1f W", e.idleWatts()), e.windowSeconds(),
        e.launches());
  }

  /** Clocks and throttling during sampling, or why they were not read; never a figure that was not read. */
  public static String clocks(KernelResult r) {
    if (r.sampling() == null) {
      return r.status() == ResultStatus.MEASURED ? NOT_RECORDED : "";
    }
    Clocks c = r.sampling().clocks();
    return switch (c.reading()) {
      case UNAVAILABLE -> "none on this device";
      case NOT_READ -> "not read: " + c.note();
      case READ -> (c.tooFewCleanSamples() ? "TOO FEW CLEAN SAMPLES; " : "") + "sm " + range(c.smMinMHz(), c.smMaxMHz())
          + " MHz, mem " + range(c.memMinMHz(), c.memMaxMHz()) + " MHz; throttle reasons 0x"
          + Long.toHexString(c.throttleReasons())
          + (c.throttleReasons() == 0 ? "" : " (" + String.join(", ", Clocks.reasonNames(c.throttleReasons())) + ")")
          + "; " + c.throttledSamplesDropped() + " throttled samples dropped";
    };
  }

  /** The working set against L2: where a figure may be the cache's, it says so first. */
  public static String cache(KernelResult r) {
    if (r.sampling() == null) {
      return r.status() == ResultStatus.MEASURED ? NOT_RECORDED : "";
    }
    CacheResidency c = r.sampling().cache();
    String sizes = mib(c.workingSetBytes()) + " working set, L2 " + mib(c.l2Bytes());
    return switch (c.residency()) {
      case ABOVE_L2 -> "above " + CacheResidency.FACTOR + "x L2 (" + sizes + ")";
      case CACHE_RESIDENT -> "CACHE-RESIDENT, under " + CacheResidency.FACTOR + "x L2 (" + sizes + ")";
      case CACHE_STUDY -> "cache study, as asked (" + sizes + ")";
      case L2_UNKNOWN -> "L2 size unknown (" + mib(c.workingSetBytes()) + " working set)";
    };
  }

  private static String mib(long bytes) {
    return ChartOptions.round(bytes / (double) (1 << 20), 1) + " MiB";
  }

  private static String range(Integer min, Integer max) {
    return min.equals(max) ? min.toString() : min + "\u2013" + max;
  }

  /**
   * One profiled kernel's counters against its model, as the counters table shows them.
   *
   * @param flag the differences beyond 10% in words, or that there are none
   */
  public record CounterRow(String kernel, String loadSectors, String storeSectors, String dramRead,
      String dramWritten, boolean flagged, String flag) {}

  /** The profiled results (those carrying counters) in the order the catalog ran them. */
  public static List<KernelResult> profiled(List<KernelResult> results) {
    return ordered(results).stream().filter(r -> r.counters() != null).toList();
  }

  public static CounterRow counterRow(KernelResult result) {
    Counters c = result.counters();
    String flag = c.flagged()
        ? "FLAG, beyond " + Math.round(Counters.TOLERANCE * 100) + "%: "
            + (c.flags().isEmpty() ? "flagged by the agent" : String.join("; ", c.flags()))
        : "within " + Math.round(Counters.TOLERANCE * 100) + "% of the model";
    return new CounterRow(label(result), sectors(c.loadSectorsPerRequest(), c.modelLoadSectorsPerRequest()),
        sectors(c.storeSectorsPerRequest(), c.modelStoreSectorsPerRequest()),
        dram(c.dramBytesRead(), result.bytesRead(), c.modelDramBytesRead()),
        dram(c.dramBytesWritten(), result.bytesWritten(), c.modelDramBytesWritten()), c.flagged(), flag);
  }

  /** Measured / model, {@code 8.00 / 4.00}; a side neither counted nor modelled is "none", never a zero. */
  static String sectors(Double measured, Double model) {
    if (measured == null && model == null) {
      return "none";
    }
    return figure(measured, 1) + " / " + figure(model, 1);
  }

  /**
   * Measured DRAM megabytes (10^6 bytes) / what the model allows: from the useful bytes (each byte once) to the
   * bytes of the sectors it predicts, {@code 105.30 / 67.11-83.89}.
   */
  static String dram(Double measured, long useful, Double modelSectors) {
    if (measured == null && modelSectors == null && useful == 0) {
      return "none";
    }
    String model = figure((double) useful, 1e6) + (modelSectors == null ? "" : "\u2013" + figure(modelSectors, 1e6));
    return figure(measured, 1e6) + " / " + model;
  }

  /** Two decimals of {@code value / unit}; a dash where there is no figure. */
  private static String figure(Double value, double unit) {
    return value == null ? "\u2013" : String.format(Locale.ROOT, "%.2f", value / unit);
  }

  /**
   * Sectors per request of each profiled kernel, measured beside the model's, loads and stores: a kernel whose
   * bars differ is one the coalescing model does not describe. A missing figure is left out, never drawn as zero.
   */
  public static ObjectNode countersOption(String runId, List<KernelResult> results) {
    List<KernelResult> profiled = profiled(results);
    ObjectNode option = ChartOptions.base("Sectors per request: ncu counters against the model",
        "run " + runId + " (profiled kernels; flagged beyond " + Math.round(Counters.TOLERANCE * 100) + "%)");
    option.putObject("tooltip").put("trigger", "axis");
    option.with("grid").put("bottom", 200);
    ObjectNode x = ChartOptions.axis(option, "xAxis", "category", "kernel and parameters");
    x.put("nameGap", 140);
    x.putObject("axisLabel").put("rotate", 30).put("interval", 0);
    ArrayNode categories = x.putArray("data");
    ChartOptions.axis(option, "yAxis", "value", "sectors per request (32-byte sectors / warp request)");
    ArrayNode series = option.putArray("series");
    ArrayNode loads = bars(series, "loads-measured", "loads: measured (ncu)");
    ArrayNode loadModel = bars(series, "loads-model", "loads: model");
    ArrayNode stores = bars(series, "stores-measured", "stores: measured (ncu)");
    ArrayNode storeModel = bars(series, "stores-model", "stores: model");
    for (KernelResult r : profiled) {
      Counters c = r.counters();
      categories.add((c.flagged() ? "FLAG " : "") + label(r));
      add(loads, c.loadSectorsPerRequest());
      add(loadModel, c.modelLoadSectorsPerRequest());
      add(stores, c.storeSectorsPerRequest());
      add(storeModel, c.modelStoreSectorsPerRequest());
    }
    return option;
  }

  private static ArrayNode bars(ArrayNode series, String id, String name) {
    return series.addObject().put("id", id).put("type", "bar").put("name", name).putArray("data");
  }

  private static void add(ArrayNode data, Double value) {
    if (value == null) {
      data.add("-"); // ECharts' missing value: no bar, where a 0 would claim a count
    } else {
      data.add(ChartOptions.round(value, 3));
    }
  }
}
