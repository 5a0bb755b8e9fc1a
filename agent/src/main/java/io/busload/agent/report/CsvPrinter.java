package io.busload.agent.report;

import io.busload.protocol.KernelResult;
import io.busload.protocol.ResultCsv;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * CSV with the coordinator's columns (docs/contract.md) plus {@code launchesPerSample}, {@code method} and the
 * fractions of the run's measured ceiling and of the theoretical peak ({@link Ceilings}), then the rest of the
 * record ({@link ResultCsv#CARRIED}: device fingerprint, environment, every sample), so that {@code ./busload push}
 * can bring a CSV file to a coordinator as whole as a JSON one, and last how it was measured as typed
 * columns ({@link ResultCsv#SAMPLING}). Params as {@code elements=1024;stride=4},
 * seconds and bytes/s in SI, bandwidth empty when invalid.
 */
public final class CsvPrinter implements ResultPrinter {
  static final String FRACTION_OF_CEILING = "fractionOfCeiling";
  static final String FRACTION_OF_PEAK = "fractionOfPeak";
  /** The columns in order: what results CSV always had first, the derived fractions, then the rest. */
  public static final List<String> COLUMNS = columns();
  public static final String HEADER = String.join(",", COLUMNS);

  private static List<String> columns() {
    List<String> columns = new ArrayList<>(ResultCsv.SUMMARY);
    columns.addAll(ResultCsv.METHOD);
    columns.add(FRACTION_OF_CEILING);
    columns.add(FRACTION_OF_PEAK);
    columns.addAll(ResultCsv.CARRIED);
    columns.addAll(ResultCsv.SAMPLING);
    columns.addAll(ResultCsv.ENERGY);
    columns.addAll(ResultCsv.HEALTH);
    return List.copyOf(columns);
  }

  @Override
  public void print(List<KernelResult> results, PrintWriter out) {
    out.print(HEADER + "\r\n");
    Ceilings ceilings = Ceilings.of(results);
    for (KernelResult r : results) {
      List<String> row = new ArrayList<>(COLUMNS.size());
      for (String column : COLUMNS) {
        row.add(field(switch (column) {
          case FRACTION_OF_CEILING -> ceilings.ofMeasured(r).orElse(null);
          case FRACTION_OF_PEAK -> ceilings.ofPeak(r).orElse(null);
          default -> ResultCsv.value(column, r);
        }));
      }
      out.print(String.join(",", row) + "\r\n");
    }
    out.flush();
  }

  public static String params(Map<String, Object> params) {
    return ResultCsv.params(params);
  }

  /** RFC 4180: quote a field holding a comma, quote or line break; null is empty. */
  static String field(Object value) {
    if (value == null) {
      return "";
    }
    String text = value.toString();
    if (text.contains(",") || text.contains("\"") || text.contains("\n") || text.contains("\r")) {
      return "\"" + text.replace("\"", "\"\"") + "\"";
    }
    return text;
  }
}
