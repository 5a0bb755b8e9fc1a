package io.busload.dashboard.compare;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Figures published elsewhere ({@code published/published-results.csv}; see the README beside it
 * for where each figure comes from). Read-only, shown labelled with their source; never mixed into measured data.
 */
public final class PublishedFigures {
  static final String RESOURCE = "/published/published-results.csv";

  /** One published figure as the CSV has it. */
  public record Figure(String source, String device, String family, String variant, String parameter, double value,
      String unit, String note) {

    /** The label every display of it carries. */
    public String label() {
      return "published: " + device + " " + family + " " + variant + (parameter.isEmpty() ? "" : " " + parameter)
          + " (" + source + ")";
    }
  }

  private PublishedFigures() {}

  public static List<Figure> load() {
    try (InputStream in = PublishedFigures.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("resource " + RESOURCE + " is missing from the dashboard jar");
      }
      BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      List<Figure> figures = new ArrayList<>();
      reader.readLine(); // header: source,device,family,variant,parameter,value,unit,note
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        if (!line.isBlank()) {
          List<String> cells = cells(line);
          figures.add(new Figure(cells.get(0), cells.get(1), cells.get(2), cells.get(3), cells.get(4),
              Double.parseDouble(cells.get(5)), cells.get(6), cells.size() > 7 ? cells.get(7) : ""));
        }
      }
      return List.copyOf(figures);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** RFC 4180 cells: commas inside double quotes, doubled quotes as one. */
  static List<String> cells(String line) {
    List<String> cells = new ArrayList<>();
    StringBuilder cell = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quoted) {
        if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
          cell.append('"');
          i++;
        } else if (c == '"') {
          quoted = false;
        } else {
          cell.append(c);
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        cells.add(cell.toString());
        cell.setLength(0);
      } else {
        cell.append(c);
      }
    }
    cells.add(cell.toString());
    return cells;
  }
}
