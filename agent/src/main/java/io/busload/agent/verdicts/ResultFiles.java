package io.busload.agent.verdicts;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import io.busload.agent.report.Csv;
import io.busload.analysis.verdict.Conditions;
import io.busload.protocol.Clocks;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads what {@code busload run --format json} or {@code --format csv} wrote, and refuses anything else naming the
 * file and line: a JSON array of results, or CSV with {@link io.busload.agent.report.CsvPrinter}'s header.
 */
final class ResultFiles {
  /** Columns a CSV must have; the rest of the printer's header is optional here. */
  static final List<String> REQUIRED = List.of("measuredAt", "deviceId", "deviceName", "kernel", "params", "valid",
      "bytes", "method");

  /** Fields every result of a JSON file must have. */
  static final List<String> JSON_REQUIRED = List.of("id", "kernel", "device", "params", "valid", "samples", "bytes",
      "measuredAt");

  private ResultFiles() {}

  static List<Measured> read(Path file) throws BadInputException {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (MalformedInputException e) {
      throw new BadInputException(file + ": not a result file from busload run (not UTF-8 text)");
    } catch (IOException e) {
      throw new BadInputException(file + ": cannot read it: " + e.getMessage());
    }
    String start = text.stripLeading();
    if (start.isEmpty()) {
      throw new BadInputException(file + ": empty, not a result file from busload run");
    }
    List<Measured> results = start.startsWith("[") || start.startsWith("{") ? json(file, text) : csv(file, text);
    if (results.isEmpty()) {
      throw new BadInputException(file + ": holds no results");
    }
    return results;
  }

  private static List<Measured> json(Path file, String text) throws BadInputException {
    List<Measured> results = new ArrayList<>();
    try (JsonParser parser = JsonCodec.MAPPER.createParser(text)) {
      if (parser.nextToken() != JsonToken.START_ARRAY) {
        throw new BadInputException(file + " line " + parser.currentTokenLocation().getLineNr()
            + ": not a result file from busload run (expected a JSON array of results)");
      }
      while (parser.nextToken() != JsonToken.END_ARRAY) {
        int line = parser.currentTokenLocation().getLineNr();
        if (parser.currentToken() != JsonToken.START_OBJECT) {
          throw new BadInputException(file + " line " + line + ": not a result file from busload run (expected a "
              + "result object, found " + parser.currentToken() + ")");
        }
        JsonNode node = JsonCodec.MAPPER.readTree(parser);
        for (String field : JSON_REQUIRED) {
          if (node.get(field) == null || node.get(field).isNull()) {
            throw new BadInputException(file + " line " + line + ": not a result from busload run (no " + field + ")");
          }
        }
        results.add(Measured.of(JsonCodec.MAPPER.treeToValue(node, KernelResult.class)));
      }
    } catch (JsonProcessingException e) {
      throw new BadInputException(file + " line " + e.getLocation().getLineNr() + ": not a result file from busload "
          + "run: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new BadInputException(file + ": cannot read it: " + e.getMessage());
    }
    return results;
  }

  private static List<Measured> csv(Path file, String text) throws BadInputException {
    List<Csv.Row> rows = Csv.rows(text);
    List<String> header = rows.getFirst().fields();
    for (String column : REQUIRED) {
      if (!header.contains(column)) {
        throw new BadInputException(file + " line " + rows.getFirst().line() + ": not a result file from busload "
            + "run (JSON, or CSV whose header has " + String.join(",", REQUIRED) + "): no column '" + column
            + "' in '" + abbreviate(String.join(",", header)) + "'");
      }
    }
    int samples = header.indexOf("sampleSeconds"); // absent in an older CSV: judged UNCLEAR
    List<Measured> results = new ArrayList<>();
    for (Csv.Row row : rows.subList(1, rows.size())) {
      List<String> f = row.fields();
      String where = file + " line " + row.line() + ": ";
      if (f.size() != header.size()) {
        throw new BadInputException(where + f.size() + " fields where the header has " + header.size());
      }
      String valid = get(f, header, "valid");
      if (!valid.equals("true") && !valid.equals("false")) {
        throw new BadInputException(where + "valid is '" + valid + "', not true or false");
      }
      Instant measuredAt;
      try {
        measuredAt = Instant.parse(get(f, header, "measuredAt"));
      } catch (DateTimeParseException e) {
        throw new BadInputException(where + "measuredAt '" + get(f, header, "measuredAt") + "' is not an ISO instant");
      }
      List<Double> seconds = new ArrayList<>();
      if (samples >= 0 && !f.get(samples).isBlank()) {
        // ResultCsv's one cell for the list: samples separated by ';'.
        for (String s : f.get(samples).split(";")) {
          seconds.add(number(where, "sampleSeconds", s.strip()));
        }
      }
      String bandwidth = header.contains("bandwidth") ? get(f, header, "bandwidth") : "";
      results.add(new Measured(get(f, header, "kernel"), get(f, header, "params"), get(f, header, "deviceId"),
          get(f, header, "deviceName"), null, null, null, null, valid.equals("true"),
          valid.equals("true") ? null : get(f, header, "method"), seconds,
          (long) number(where, "bytes", get(f, header, "bytes")),
          bandwidth.isBlank() ? null : number(where, "bandwidth", bandwidth), get(f, header, "method"), measuredAt,
          conditions(where, f, header)));
    }
    return results;
  }

  /**
   * Clocks from the row's typed columns (ResultCsv's sampling columns) where it has them; from its
   * method sentence only in a file written before them, or for a result that was never timed.
   */
  private static Conditions conditions(String where, List<String> f, List<String> header) throws BadInputException {
    String method = get(f, header, "method");
    if (!header.contains("clocksReading") || get(f, header, "clocksReading").isBlank()) {
      return Conditions.fromMethod(method);
    }
    String reasons = header.contains("throttleReasons") ? get(f, header, "throttleReasons").strip() : "";
    boolean throttling;
    try {
      throttling = !reasons.isEmpty() && Clocks.throttling(Long.decode(reasons));
    } catch (NumberFormatException e) {
      throw new BadInputException(where + "throttleReasons '" + abbreviate(reasons) + "' is not a mask such as 0x4");
    }
    return Conditions.fromClocks(get(f, header, "clocksReading").strip().equals(Clocks.Reading.READ.name()),
        megahertz(where, f, header, "smClockMinMHz"), megahertz(where, f, header, "smClockMaxMHz"),
        megahertz(where, f, header, "memClockMinMHz"), megahertz(where, f, header, "memClockMaxMHz"), throttling,
        method);
  }

  private static Integer megahertz(String where, List<String> f, List<String> header, String column)
      throws BadInputException {
    String text = header.contains(column) ? get(f, header, column).strip() : "";
    return text.isEmpty() ? null : (int) number(where, column, text);
  }

  private static String get(List<String> fields, List<String> header, String column) {
    return fields.get(header.indexOf(column));
  }

  private static double number(String where, String column, String text) throws BadInputException {
    try {
      return Double.parseDouble(text);
    } catch (NumberFormatException e) {
      throw new BadInputException(where + column + " '" + abbreviate(text) + "' is not a number");
    }
  }

  private static String abbreviate(String text) {
    return text.length() <= 80 ? text : text.substring(0, 77) + "...";
  }
}
