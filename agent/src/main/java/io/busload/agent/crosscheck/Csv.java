package io.busload.agent.crosscheck;

import java.util.ArrayList;
import java.util.List;

/** RFC 4180 records (quoted fields, doubled quotes, CRLF or LF), enough for Busload's, the harness's and ncu's CSV. */
final class Csv {
  private Csv() {}

  static List<List<String>> parse(String text) {
    List<List<String>> records = new ArrayList<>();
    List<String> record = new ArrayList<>();
    StringBuilder field = new StringBuilder();
    boolean quoted = false;
    boolean any = false;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
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
            records.add(record);
          }
          record = new ArrayList<>();
          field.setLength(0);
          any = false;
        }
        default -> {
          field.append(c);
          any = true;
        }
      }
    }
    if (any || field.length() > 0) {
      record.add(field.toString());
      records.add(record);
    }
    return records;
  }

  /** Index of {@code column} in a header record; {@link IllegalArgumentException} naming what there is. */
  static int column(List<String> header, String column, String what) {
    int index = header.indexOf(column);
    if (index < 0) {
      throw new IllegalArgumentException(what + ": no column '" + column + "' in " + header);
    }
    return index;
  }
}
