package io.busload.agent.crosscheck;

import io.busload.agent.report.Csv;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Nsight Compute's {@code --csv} output (the default "details" page): one record per (launch, metric) with
 * columns {@code "ID","Process ID","Process Name","Host Name","Kernel Name",...,"Section Name","Metric Name",
 * "Metric Unit","Metric Value"} (the columns between vary with the version, so they are found by name). Lines
 * before the header ({@code ==PROF==} messages, the application's output) are skipped. Values may carry
 * thousands separators ({@code "1,048,576"}) and scaled byte units ({@code Mbyte}, {@code KiB}); both are
 * undone, so every value is in base units. {@code n/a} becomes NaN.
 */
public final class NcuCsv {
  private NcuCsv() {}

  /** One profiled kernel launch, {@code id} in launch order. */
  public record Launch(int id, String kernelName, Map<String, Double> metrics) {
    public Launch {
      metrics = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(metrics));
    }

    /** The metric, or NaN when ncu did not report it. */
    public double metric(String name) {
      return metrics.getOrDefault(name, Double.NaN);
    }
  }

  public static List<Launch> parse(String text) {
    int start = headerStart(text);
    if (start < 0) {
      throw new IllegalArgumentException("ncu CSV: no header line starting with \"ID\" (did ncu profile anything?)");
    }
    List<List<String>> records = Csv.parse(text.substring(start));
    List<String> header = records.getFirst();
    int id = Csv.column(header, "ID", "ncu CSV");
    int kernel = Csv.column(header, "Kernel Name", "ncu CSV");
    int name = Csv.column(header, "Metric Name", "ncu CSV");
    int unit = Csv.column(header, "Metric Unit", "ncu CSV");
    int value = Csv.column(header, "Metric Value", "ncu CSV");
    Map<Integer, String> kernels = new LinkedHashMap<>();
    Map<Integer, Map<String, Double>> metrics = new LinkedHashMap<>();
    for (List<String> r : records.subList(1, records.size())) {
      if (r.size() < header.size() || r.get(id).startsWith("==")) {
        continue; // a profiler message after the table
      }
      int launch = Integer.parseInt(r.get(id).strip());
      kernels.putIfAbsent(launch, r.get(kernel));
      metrics.computeIfAbsent(launch, k -> new LinkedHashMap<>()).put(r.get(name), value(r.get(value), r.get(unit)));
    }
    List<Launch> launches = new ArrayList<>();
    kernels.forEach((launch, k) -> launches.add(new Launch(launch, k, metrics.get(launch))));
    launches.sort(java.util.Comparator.comparingInt(Launch::id));
    return launches;
  }

  private static int headerStart(String text) {
    if (text.startsWith("\"ID\"")) {
      return 0;
    }
    int at = text.indexOf("\n\"ID\"");
    return at < 0 ? -1 : at + 1;
  }

  /** A metric value in base units: separators removed, byte prefixes (K, M, G, T; Ki, Mi, Gi, Ti) applied. */
  static double value(String text, String unit) {
    String v = text.strip().replace(",", "");
    if (v.isEmpty() || v.equalsIgnoreCase("n/a")) {
      return Double.NaN;
    }
    return Double.parseDouble(v) * scale(unit.strip());
  }

  static double scale(String unit) {
    String u = unit.toLowerCase(Locale.ROOT);
    if (!u.endsWith("byte") && !u.endsWith("b")) {
      return 1;
    }
    String prefix = u.endsWith("byte") ? u.substring(0, u.length() - 4) : u.substring(0, u.length() - 1);
    return switch (prefix) {
      case "" -> 1;
      case "k" -> 1e3;
      case "m" -> 1e6;
      case "g" -> 1e9;
      case "t" -> 1e12;
      case "ki" -> 1024.0;
      case "mi" -> 1024.0 * 1024;
      case "gi" -> 1024.0 * 1024 * 1024;
      case "ti" -> 1024.0 * 1024 * 1024 * 1024;
      default -> 1; // not a byte unit after all (sector, request, ...)
    };
  }
}
