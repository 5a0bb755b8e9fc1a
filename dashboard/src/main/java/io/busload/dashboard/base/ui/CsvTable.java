package io.busload.dashboard.base.ui;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import com.vaadin.flow.component.grid.Grid;
import com.vaadin.flow.component.html.Anchor;
import com.vaadin.flow.component.orderedlayout.VerticalLayout;
import com.vaadin.flow.function.ValueProvider;
import com.vaadin.flow.server.VaadinSession;
import com.vaadin.flow.server.streams.DownloadHandler;
import com.vaadin.flow.server.streams.DownloadResponse;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A grid whose columns also make a CSV file (every table exports CSV). Each column added through
 * {@link #column} is a grid column and a CSV column with the same header and text; {@link #link()} downloads the rows
 * the grid holds, in its order. A Vaadin renderer does not give its values back, hence one place that knows both.
 */
public final class CsvTable<T> {
  private static final CsvMapper CSV = new CsvMapper();

  private record Column<T>(String header, ValueProvider<T, ?> value) {}

  private final Grid<T> grid;
  private final String fileName;
  private final List<Column<T>> columns = new ArrayList<>();

  /** @param fileName what the download is called, {@code changes.csv} */
  public CsvTable(Grid<T> grid, String fileName) {
    this.grid = grid;
    this.fileName = fileName;
  }

  /** A text column of the grid and of the CSV. */
  public Grid.Column<T> column(String header, ValueProvider<T, ?> value) {
    columns.add(new Column<>(header, value));
    return grid.addColumn(value).setHeader(header);
  }

  /** A CSV column only: the text behind a grid column drawn as components (a link, a progress bar). */
  public CsvTable<T> csvOnly(String header, ValueProvider<T, ?> value) {
    columns.add(new Column<>(header, value));
    return this;
  }

  /** The rows the grid holds now, as RFC 4180 CSV with a header line. */
  public String csv() {
    List<List<String>> rows = new ArrayList<>();
    rows.add(columns.stream().map(Column::header).toList());
    grid.getGenericDataView().getItems().forEach(item -> rows.add(columns.stream().map(c -> {
      Object v = c.value().apply(item);
      return v == null ? "" : v.toString();
    }).toList()));
    try {
      return CSV.writer(CsvSchema.emptySchema().withLineSeparator("\r\n")).writeValueAsString(rows);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the table as CSV", e);
    }
  }

  /**
   * The grid with its Export CSV link under it, as one component: a view shows or hides the table (and its link) by
   * this one. Call once, after the grid has its id.
   */
  public VerticalLayout withLink() {
    VerticalLayout table = new VerticalLayout(grid, link());
    table.setPadding(false);
    table.setSpacing(false);
    return table;
  }

  /** "Export CSV": downloads {@link #csv()} as the file name given; its id is the grid's id with "-csv". */
  public Anchor link() {
    Anchor link = new Anchor(DownloadHandler.fromInputStream(event -> {
      String text;
      VaadinSession session = event.getSession();
      session.lock();
      try {
        text = csv();
      } finally {
        session.unlock();
      }
      byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
      return new DownloadResponse(new ByteArrayInputStream(bytes), fileName, "text/csv; charset=utf-8", bytes.length);
    }), "Export CSV");
    grid.getId().ifPresent(id -> link.setId(id + "-csv"));
    link.getElement().setAttribute("download", fileName);
    return link;
  }
}
