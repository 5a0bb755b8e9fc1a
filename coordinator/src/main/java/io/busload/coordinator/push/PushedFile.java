package io.busload.coordinator.push;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvParser;
import io.busload.coordinator.fleet.Intake;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import io.busload.protocol.MeasuredBy;
import io.busload.protocol.ResultCsv;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A file {@code ./busload push} brought, read into results, each with the line it starts on: the JSON array that
 * {@code ./busload run --format json} writes (and the coordinator's JSON export), or the CSV of {@code --format csv}
 * (columns by name, {@link ResultCsv}), or another tool's output ({@link BabelStreamOutput}). Which is told by the
 * content, not by a name or a header a client may get wrong. Anything else, a truncated file included, is refused
 * with where reading stopped.
 *
 * @param rows the results in file order
 * @param measuredBy the other tool whose output the file is; null for Busload's own
 */
record PushedFile(Format format, List<Row> rows, MeasuredBy measuredBy) {
  private static final CsvMapper CSV = new CsvMapper();

  enum Format { JSON, CSV, BABELSTREAM }

  PushedFile(Format format, List<Row> rows) {
    this(format, rows, null);
  }

  /**
   * What the push says of a file beside its bytes, for formats that do not carry it: the host it comes from, when
   * it was measured (the file's modification time, as {@code ./busload push} sends it) and the tool's version. Any
   * may be null; Busload's own files need none.
   */
  record Context(String host, Instant measuredAt, String toolVersion) {
    static final Context NONE = new Context(null, null, null);
  }

  /**
   * One result of the file and where it lies: its first line and, for JSON, the line of each of its fields (by JSON
   * pointer, {@code /device/name}), so that a problem with a field names the line it is on.
   */
  record Row(int line, KernelResult result, Map<String, Integer> fieldLines) {}

  /** Where a problem with a field of a row lies: the line, and the field as this file's format names it. */
  record Place(int line, String field) {}

  static PushedFile read(byte[] body) {
    return read(body, Context.NONE);
  }

  static PushedFile read(byte[] body, Context context) {
    int bom = body.length >= 3 && (body[0] & 0xff) == 0xef && (body[1] & 0xff) == 0xbb && (body[2] & 0xff) == 0xbf
        ? 3 : 0; // a byte-order mark, as some editors save
    int first = bom;
    while (first < body.length && Character.isWhitespace(body[first])) {
      first++;
    }
    if (first == body.length) {
      throw PushRefused.unreadable("the file is empty", null);
    }
    if (body[first] == '[' || body[first] == '{') {
      return json(body);
    }
    String head = firstLine(body, first);
    if (head.startsWith("id,") || head.contains(",id,") || head.equals("id")) {
      return csv(body, bom);
    }
    String text = new String(body, bom, body.length - bom, StandardCharsets.UTF_8);
    if (BabelStreamOutput.is(text)) {
      BabelStreamOutput.Read read = BabelStreamOutput.read(body, text, context);
      return new PushedFile(Format.BABELSTREAM, read.rows(), read.measuredBy());
    }
    throw PushRefused.unreadable("not a results file: expected the JSON array or the CSV that ./busload run writes"
        + " with --format json or --format csv, or BabelStream's --csv output; this one starts with '"
        + shorten(head) + "'", 1);
  }

  /** The place of {@code field} (as the checks name it: {@code device.name}, {@code params.stride}) in a row. */
  Place place(Row row, String field) {
    if (field == null) {
      return new Place(row.line(), null);
    }
    if (format == Format.CSV) {
      return new Place(row.line(), ResultCsv.column(field));
    }
    String pointer = "/" + field.replace('.', '/').replaceAll("\\[(\\d+)\\]", "/$1");
    while (!pointer.isEmpty()) {
      Integer line = row.fieldLines().get(pointer);
      if (line != null) {
        return new Place(line, field);
      }
      pointer = pointer.substring(0, pointer.lastIndexOf('/'));
    }
    return new Place(row.line(), field);
  }

  private static PushedFile json(byte[] body) {
    List<Row> rows = new ArrayList<>();
    try (JsonParser parser = JsonCodec.MAPPER.getFactory().createParser(body)) {
      JsonToken token = parser.nextToken();
      if (token != JsonToken.START_ARRAY) {
        throw PushRefused.unreadable("a JSON results file is an array of results, as ./busload run --format json"
            + " writes it; this one is a single " + describe(token), 1);
      }
      while ((token = parser.nextToken()) != JsonToken.END_ARRAY) {
        JsonLocation start = parser.currentTokenLocation();
        if (token != JsonToken.START_OBJECT) {
          throw PushRefused.unreadable("result " + (rows.size() + 1) + " is a " + describe(token)
              + ", not a result object", start.getLineNr());
        }
        rows.add(element(body, parser, start));
      }
      token = parser.nextToken();
      if (token != null) {
        throw PushRefused.unreadable("content after the array of results", parser.currentTokenLocation().getLineNr());
      }
    } catch (JsonEOFException e) {
      throw truncated(rows, e);
    } catch (JsonProcessingException e) {
      if (atEnd(body, e)) {
        throw truncated(rows, e); // a cut inside a token: 'nul' of null, half a number
      }
      throw PushRefused.unreadable("not valid JSON: " + e.getOriginalMessage(),
          e.getLocation() == null ? null : e.getLocation().getLineNr());
    } catch (IOException e) {
      throw PushRefused.unreadable("cannot be read: " + e.getMessage(), null);
    }
    return nonEmpty(new PushedFile(Format.JSON, rows));
  }

  private static PushRefused truncated(List<Row> rows, JsonProcessingException e) {
    return PushRefused.unreadable("the file ends in the middle of " + (rows.isEmpty() ? "its first result"
        : "result " + (rows.size() + 1)) + " (truncated?): " + e.getOriginalMessage(), e.getLocation().getLineNr());
  }

  /**
   * Whether the parser failed on the file's last token, cut short: Jackson places such an error at the token's
   * start, and from there to the end there is nothing but the token ('nul', '12.').
   */
  private static boolean atEnd(byte[] body, JsonProcessingException e) {
    if (e.getLocation() == null || e.getLocation().getByteOffset() < 0) {
      return false;
    }
    int end = body.length;
    while (end > 0 && Character.isWhitespace(body[end - 1])) {
      end--;
    }
    for (long i = e.getLocation().getByteOffset(); i < end; i++) {
      byte b = body[(int) i];
      if (Character.isWhitespace(b) || "{}[],:".indexOf(b) >= 0) {
        return false;
      }
    }
    return true;
  }

  /** One result object: the line of each field, then the object decoded as results from the event bus are. */
  private static Row element(byte[] body, JsonParser parser, JsonLocation start) throws IOException {
    Map<String, Integer> lines = new HashMap<>();
    int depth = 1;
    while (depth > 0) {
      JsonToken token = parser.nextToken();
      if (token == null) {
        throw new JsonEOFException(parser, null, "expected the end of the result object");
      }
      switch (token) {
        case START_OBJECT, START_ARRAY -> depth++;
        case END_OBJECT, END_ARRAY -> depth--;
        case FIELD_NAME -> {
          String pointer = parser.getParsingContext().pathAsPointer().toString();
          // The pointer starts with the element's index in the file's array: "/3/device/name".
          lines.putIfAbsent(pointer.substring(pointer.indexOf('/', 1)), parser.currentTokenLocation().getLineNr());
        }
        default -> { }
      }
    }
    int line = start.getLineNr();
    byte[] json = Arrays.copyOfRange(body, (int) start.getByteOffset(), (int) parser.currentLocation().getByteOffset());
    try {
      return new Row(line, Intake.decodeResult(json), lines);
    } catch (IllegalArgumentException e) {
      if (e.getCause() instanceof JsonMappingException mapping && !mapping.getPath().isEmpty()) {
        String field = mapping.getPath().stream()
            .map(ref -> ref.getFieldName() != null ? ref.getFieldName() : "[" + ref.getIndex() + "]")
            .collect(Collectors.joining(".")).replace(".[", "[");
        int at = mapping.getLocation() == null ? line : line + mapping.getLocation().getLineNr() - 1;
        throw PushRefused.badRow(at, field, null, mapping.getOriginalMessage());
      }
      throw PushRefused.badRow(line, null, null, e.getMessage());
    }
  }

  private static PushedFile csv(byte[] body, int bom) {
    if (body[body.length - 1] != '\n') {
      // ./busload run ends every row with a line break: a last row without one was cut off.
      throw PushRefused.unreadable("the last line has no line break: the file looks truncated", lines(body));
    }
    List<Row> rows = new ArrayList<>();
    List<String> header = null;
    try (CsvParser parser = (CsvParser) CSV.getFactory().createParser(body, bom, body.length - bom)) {
      JsonToken token;
      while ((token = parser.nextToken()) != null) {
        if (token != JsonToken.START_ARRAY) {
          continue;
        }
        List<String> cells = new ArrayList<>();
        int line = -1;
        while ((token = parser.nextToken()) == JsonToken.VALUE_STRING) {
          if (line < 0) {
            line = parser.currentTokenLocation().getLineNr();
          }
          cells.add(parser.getText());
        }
        if (cells.size() == 1 && cells.getFirst().isEmpty()) {
          continue; // a blank line
        }
        if (header == null) {
          header = cells;
          List<String> missing = ResultCsv.required().stream().filter(c -> !cells.contains(c)).toList();
          if (!missing.isEmpty()) {
            throw PushRefused.unreadable("the CSV has no column " + String.join(", ", missing) + " (a CSV without"
                + " them lacks the device and environment: push its JSON, or measure again)", line);
          }
          continue;
        }
        rows.add(row(header, cells, line));
      }
    } catch (JsonProcessingException e) {
      throw PushRefused.unreadable("not valid CSV (truncated?): " + e.getOriginalMessage(),
          e.getLocation() == null ? null : e.getLocation().getLineNr());
    } catch (IOException e) {
      throw PushRefused.unreadable("cannot be read: " + e.getMessage(), null);
    }
    return nonEmpty(new PushedFile(Format.CSV, rows));
  }

  private static Row row(List<String> header, List<String> cells, int line) {
    if (cells.size() != header.size()) {
      throw PushRefused.badRow(line, null, null, cells.size() + " of the header's " + header.size() + " columns"
          + (cells.size() < header.size() ? " (truncated?)" : ""));
    }
    Map<String, String> byName = new HashMap<>();
    for (int i = 0; i < header.size(); i++) {
      byName.putIfAbsent(header.get(i), cells.get(i));
    }
    try {
      return new Row(line, ResultCsv.read(byName::get), Map.of());
    } catch (ResultCsv.BadCell e) {
      throw PushRefused.badRow(line, e.column(), null, e.getMessage().substring(e.column().length() + 2));
    }
  }

  private static PushedFile nonEmpty(PushedFile file) {
    if (file.rows().isEmpty()) {
      throw PushRefused.unreadable("the file holds no results", null);
    }
    return file;
  }

  private static String firstLine(byte[] body, int from) {
    int end = from;
    while (end < body.length && body[end] != '\n' && body[end] != '\r' && end - from < 100_000) {
      end++;
    }
    return new String(body, from, end - from, StandardCharsets.UTF_8);
  }

  private static int lines(byte[] body) {
    int lines = 1;
    for (byte b : body) {
      if (b == '\n') {
        lines++;
      }
    }
    return lines;
  }

  private static String describe(JsonToken token) {
    return switch (token) {
      case null -> "nothing";
      case START_OBJECT -> "object";
      case START_ARRAY -> "array";
      case VALUE_STRING -> "string";
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "number";
      case VALUE_TRUE, VALUE_FALSE -> "boolean";
      case VALUE_NULL -> "null";
      default -> token.name().toLowerCase(java.util.Locale.ROOT);
    };
  }

  private static String shorten(String text) {
    return text.length() > 60 ? text.substring(0, 60) + "..." : text;
  }
}
