package io.busload.agent.report;

import java.util.ArrayList;
import java.util.List;

/**
 * RFC 4180 records (quoted fields, doubled quotes, CRLF or LF), enough for Busload's, the harness's and ncu's CSV.
 * Each record knows the line it starts on, so a reader can name the line it refuses.
 */
public final class Csv {
  /** One record: its fields, and the 1-based line of the text it starts on. */
  public record Row(int line, List<String> fields) {}

  private Csv() {}

  public static List<List<String>> parse(String text) {
    return rows(text).stream().map(Row::fields).toList();
  }

  public static List<Row> rows(String text) {
    List<Row> records = new ArrayList<>();
    List<String> record = new ArrayList<>();
    StringBuilder field = new StringBuilder();
    boolean quoted = false;
    boolean any = false;
    int line = 1;
    int start = 1;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\n') {
        line++;
      }
      if (quoted) {
        if (c == '"' && i + 1 < text.length() && text.charAt(i + 1) == '"') {
          field.append('"');
          i++;
        } else if (c == '"') {
          quoted = false;
        } else {
          field.append(c);
        }
        continue;
      }
      switch (c) {
        case '"' -> {
          quoted = true;
          any = true;
        }
        case ',' -> {
          record.add(field.toString());
          field.setLength(0);
          any = true;
        }
        case '\r' -> { }
        case '\n' -> {
          if (any || field.length() > 0) {
            record.add(field.toString());
            records.add(new Row(start, record));
          }
          record = new ArrayList<>();
          field.setLength(0);
          any = false;
          start = line;
        }
        default -> {
          field.append(c);
          any = true;
        }
      }
    }
    if (any || field.length() > 0) {
      record.add(field.toString());
      records.add(new Row(start, record));
    }
    return records;
  }

  /** Index of {@code column} in a header record; {@link IllegalArgumentException} naming what there is. */
  public static int column(List<String> header, String column, String what) {
    int index = header.indexOf(column);
    if (index < 0) {
      throw new IllegalArgumentException(what + ": no column '" + column + "' in " + header);
    }
    return index;
  }
}
