package io.busload.dashboard.links;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.busload.dashboard.base.ui.ChartOptions;
import io.busload.protocol.KernelResult;
import io.busload.protocol.Topology;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Charts of the interconnect suite's results. A pair kernel's results ({@code p2p-*}, parameter
 * {@code peer}) measured on each GPU of a host fill one row each of that host's GPU x GPU matrix; a pair without peer
 * access is a cell saying so, never a zero. The host link kernels' results at each {@code bytes} draw one curve each,
 * with the PCIe link's theoretical rate from the device's topology as a line.
 */
public final class Links {
  /** The suite the agent names these results by (io.busload.kernels.families.Interconnect.NAME). */
  public static final String SUITE = "interconnect";
  public static final String PAIR_PREFIX = "p2p-";
  public static final String BYTES = "bytes";
  public static final String PEER = "peer";
  /** The bandwidth axis of a link: bytes that cross it, not bytes read plus written. */
  public static final String LINK_AXIS = "GB/s crossing the link (both directions added for bidir)";

  private Links() {}

  /** One matrix cell: {@code text} is a bandwidth in GB/s or why there is none. */
  public record Cell(int row, int column, Double gigabytes, String text) {}

  /** Whether any result is the interconnect suite's. */
  public static boolean any(List<KernelResult> results) {
    return results.stream().anyMatch(r -> SUITE.equals(r.suite()));
  }

  /** The host part of a device id ({@code lab-4/cuda:1} -> {@code lab-4}). */
  public static String host(String deviceId) {
    int slash = deviceId.lastIndexOf('/');
    return slash < 0 ? deviceId : deviceId.substring(0, slash);
  }

  /** {@code cuda:1} of {@code lab-4/cuda:1}; -1 when the id names no GPU index. */
  public static int ordinal(String deviceId) {
    int colon = deviceId.lastIndexOf("cuda:");
    try {
      return colon < 0 ? -1 : Integer.parseInt(deviceId.substring(colon + 5));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** The interconnect results by host, hosts in name order. */
  public static Map<String, List<KernelResult>> byHost(List<KernelResult> results) {
    return results.stream().filter(r -> SUITE.equals(r.suite()))
        .collect(Collectors.groupingBy(r -> host(r.device().id()), TreeMap::new, Collectors.toList()));
  }

  /** The pair kernels among the results, in name order. */
  public static List<String> pairKernels(List<KernelResult> results) {
    return results.stream().map(KernelResult::kernel).filter(k -> k.startsWith(PAIR_PREFIX)).distinct().sorted()
        .toList();
  }

  /**
   * The cells of one pair kernel's matrix: row = the GPU that ran it, column = its peer; the newest result of each
   * pair wins. A skipped result keeps its reason ("no peer access ..."), an invalid one says it failed its check.
   */
  public static List<Cell> cells(String kernel, List<KernelResult> hostResults) {
    Map<String, KernelResult> newest = new TreeMap<>();
    hostResults.stream().filter(r -> r.kernel().equals(kernel) && r.params().get(PEER) != null)
        .sorted(Comparator.comparing(KernelResult::measuredAt, Comparator.nullsFirst(Comparator.naturalOrder())))
        .forEach(r -> newest.put(ordinal(r.device().id()) + "," + number(r.params().get(PEER)), r));
    List<Cell> cells = new ArrayList<>();
    for (KernelResult r : newest.values()) {
      int row = ordinal(r.device().id());
      int column = (int) number(r.params().get(PEER));
      if (row < 0 || column < 0) {
        continue; // a single-GPU host's "every peer" case: there is no pair to draw
      }
      if (r.valid() && r.bandwidth() != null) {
        double gigabytes = ChartOptions.gigabytes(r.bandwidth());
        cells.add(new Cell(row, column, gigabytes, gigabytes + " GB/s" + nvlinkShare(r, column)));
      } else {
        String why = r.mismatches().isEmpty() ? r.method() : r.mismatches().getFirst();
        cells.add(new Cell(row, column, null, why.contains("no peer access") ? "no peer access"
            : why.startsWith("skipped") || why.startsWith("unavailable") ? why : "INVALID: " + why));
      }
    }
    return cells;
  }

  /**
   * {@code , 86.8% of 18 NVLinks' 450.0 GB/s each way} when the pair is NVLink at a known rate (links x rate, both
   * directions' when the result counts both); empty otherwise, so a cell never shows a ceiling nobody read.
   */
  static String nvlinkShare(KernelResult r, int peer) {
    Topology t = r.device().topology();
    int directions = r.bytesRead() > 0 && r.bytesWritten() > 0 ? 2 : 1;
    double rate = t == null ? 0 : t.nvlinkBytesPerSecond(peer, r.device().computeCapability(), directions);
    if (rate == 0 || r.bandwidth() == null) {
      return "";
    }
    int links = t.peers().stream().filter(p -> p.ordinal() == peer).findFirst().orElseThrow().nvlinks();
    return String.format(java.util.Locale.ROOT, ", %.1f%% of %d NVLinks' %.1f GB/s %s", 100 * r.bandwidth() / rate,
        links, rate / 1e9, directions == 2 ? "both ways" : "each way");
  }

  /** Why a host has no matrix to draw, from its pair results' skip reasons; null when it has one. */
  public static String noMatrix(List<KernelResult> hostResults) {
    boolean pairs = hostResults.stream().anyMatch(r -> r.kernel().startsWith(PAIR_PREFIX));
    if (!pairs) {
      return "no GPU pair measured";
    }
    if (pairKernels(hostResults).stream().allMatch(k -> cells(k, hostResults).isEmpty())) {
      return hostResults.stream().filter(r -> r.kernel().startsWith(PAIR_PREFIX)).map(KernelResult::method)
          .filter(Objects::nonNull).findFirst().orElse("no GPU pair").replaceFirst("^skipped: peer: ", "");
    }
    return null;
  }

  /** The GPU x GPU heatmap of one pair kernel on one host: cells in GB/s, pairs without peer access in words. */
  public static ObjectNode heatmap(String host, String kernel, List<KernelResult> hostResults) {
    List<Cell> cells = cells(kernel, hostResults);
    int gpus = cells.stream().mapToInt(c -> Math.max(c.row(), c.column()) + 1).max().orElse(0);
    ObjectNode option = ChartOptions.base(kernel + " on " + host, "row: the GPU that ran it; column: its peer; "
        + LINK_AXIS);
    option.remove("legend");
    option.putObject("tooltip").put("trigger", "item").put("formatter", "{b}");
    option.with("grid").put("bottom", 60).put("left", 90);
    ArrayNode names = ChartOptions.JSON.createArrayNode();
    for (int g = 0; g < gpus; g++) {
      names.add("cuda:" + g);
    }
    ChartOptions.axis(option, "xAxis", "category", "peer").set("data", names.deepCopy());
    ChartOptions.axis(option, "yAxis", "category", "GPU that ran it").put("inverse", true).set("data", names);
    double max = cells.stream().filter(c -> c.gigabytes() != null).mapToDouble(Cell::gigabytes).max().orElse(1);
    option.putObject("visualMap").put("min", 0).put("max", max).put("calculable", true).put("orient", "horizontal")
        .put("left", "center").put("bottom", 0).put("dimension", 2);
    ObjectNode series = option.putArray("series").addObject().put("id", "matrix").put("name", kernel)
        .put("type", "heatmap");
    series.putObject("label").put("show", true).put("formatter", "{@[2]}");
    ArrayNode data = series.putArray("data");
    for (Cell c : cells) {
      String name = "cuda:" + c.row() + " \u2192 cuda:" + c.column() + ": " + c.text();
      ObjectNode item = data.addObject().put("name", name);
      ArrayNode value = item.putArray("value").add(c.column()).add(c.row());
      if (c.gigabytes() != null) {
        value.add(c.gigabytes());
      } else {
        value.add("-");
        item.putObject("label").put("show", true).put("formatter", c.text().length() > 24 ? "n/a" : c.text());
        item.putObject("itemStyle").put("color", "#bdbdbd");
      }
    }
    return option;
  }

  /**
   * Host link curves: bandwidth against bytes per direction (log axis) for every host kernel of the results, one
   * series per {@code label} and kernel, and a dashed line at the PCIe link's theoretical rate each way (and both ways,
   * for the bidir curves) where a device's topology gives it.
   *
   * @param subjects results by the label that names them in the legend (a device, or a Compare subject)
   */
  public static ObjectNode curves(String title, Map<String, List<KernelResult>> subjects) {
    ObjectNode option = ChartOptions.base(title, "bytes per direction from 4 KiB: latency on the left, the link's "
        + "bandwidth on the right");
    option.putObject("tooltip").put("trigger", "item").put("formatter", "{a}<br/>{@[0]} B: <b>{@[1]} GB/s</b>");
    ChartOptions.axis(option, "xAxis", "log", "bytes per direction (log scale)").put("logBase", 2);
    ChartOptions.axis(option, "yAxis", "value", LINK_AXIS);
    ArrayNode series = option.putArray("series");
    TreeSet<String> rates = new TreeSet<>();
    subjects.forEach((label, results) -> {
      Map<String, List<KernelResult>> byKernel = results.stream()
          .filter(r -> SUITE.equals(r.suite()) && !r.kernel().startsWith(PAIR_PREFIX) && r.params().get(BYTES) != null
              && r.valid() && r.bandwidth() != null)
          .collect(Collectors.groupingBy(KernelResult::kernel, TreeMap::new, Collectors.toList()));
      byKernel.forEach((kernel, rows) -> {
        String name = subjects.size() == 1 ? kernel : label + ": " + kernel;
        ObjectNode line = series.addObject().put("id", name).put("name", name).put("type", "line");
        ArrayNode data = line.putArray("data");
        Map<Long, Double> points = new TreeMap<>();
        rows.forEach(r -> points.put(number(r.params().get(BYTES)), ChartOptions.gigabytes(r.bandwidth())));
        points.forEach((bytes, gigabytes) -> data.addArray().add(bytes).add(gigabytes));
      });
      results.stream().map(r -> r.device().topology()).filter(t -> t != null && t.pcieBytesPerSecond() > 0)
          .findFirst().ifPresent(t -> rates.add(rateLabel(t) + "|" + t.pcieBytesPerSecond()));
    });
    if (!rates.isEmpty() && !series.isEmpty()) {
      ObjectNode markLine = ((ObjectNode) series.get(0)).putObject("markLine").put("symbol", "none");
      ArrayNode data = markLine.putArray("data");
      for (String rate : rates) {
        String[] parts = rate.split("\\|");
        double each = Double.parseDouble(parts[1]);
        mark(data, parts[0] + " each way: " + ChartOptions.gigabytes(each) + " GB/s", each);
        mark(data, parts[0] + " both ways: " + ChartOptions.gigabytes(2 * each) + " GB/s", 2 * each);
      }
    } else {
      option.with("title").put("subtext", option.with("title").get("subtext").asText()
          + "; no link rate line: the devices recorded no PCIe generation and width");
    }
    return option;
  }

  private static void mark(ArrayNode data, String name, double bytesPerSecond) {
    ObjectNode mark = data.addObject().put("name", name).put("yAxis", ChartOptions.gigabytes(bytesPerSecond));
    mark.putObject("lineStyle").put("type", "dashed").put("color", "#455a64");
    mark.putObject("label").put("formatter", "{b}").put("position", "insideEndTop");
  }

  /** {@code PCIe gen5 x16}. */
  public static String rateLabel(Topology t) {
    return String.format(Locale.ROOT, "PCIe gen%d x%d", t.pcieGeneration(), t.pcieWidth());
  }

  private static long number(Object value) {
    return value instanceof Number n ? n.longValue() : Long.parseLong(String.valueOf(value));
  }
}
