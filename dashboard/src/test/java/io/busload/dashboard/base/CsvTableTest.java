package io.busload.dashboard.base;

import static org.assertj.core.api.Assertions.assertThat;

import com.vaadin.flow.component.grid.Grid;
import io.busload.dashboard.base.ui.CsvTable;
import java.util.List;
import org.junit.jupiter.api.Test;

class CsvTableTest {
  record Row(String name, double value, String note) {}

  @Test
  void csv_gridRows_headerThenRowsQuotedWhereTheyMustBe() {
    Grid<Row> grid = new Grid<>();
    grid.setId("rows");
    CsvTable<Row> table = new CsvTable<>(grid, "rows.csv");
    table.column("Name", Row::name);
    table.column("Value", Row::value);
    table.csvOnly("Note", Row::note);
    grid.setItems(List.of(new Row("a", 1.5, "plain"), new Row("b, c", 2, "says \"hi\"\nand more"),
        new Row("d", 3, null)));

    String csv = table.csv();

    assertThat(csv.lines().toList()).hasSize(5); // the quoted line break makes one row two lines
    assertThat(csv).startsWith("Name,Value,Note\r\na,1.5,plain\r\n\"b, c\",2.0,\"says \"\"hi\"\"\nand more\"\r\nd,3.0,\r\n");
    assertThat(grid.getColumns()).hasSize(2);
  }
}
