package io.busload.agent.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The records and the lines they start on, as the readers that name a refused line rely on them. */
class CsvTest {
  @Test
  void rows_quotedFieldsOverTwoLinesAndBlankLines_fieldsAndStartingLines() {
    String text = "id,note\r\n\r\na,\"two\r\nlines, \"\"quoted\"\"\"\r\nb,\r\n\n,c\n";

    List<Csv.Row> rows = Csv.rows(text);

    assertThat(rows).containsExactly(new Csv.Row(1, List.of("id", "note")),
        new Csv.Row(3, List.of("a", "two\r\nlines, \"quoted\"")), new Csv.Row(5, List.of("b", "")),
        new Csv.Row(7, List.of("", "c")));
  }

  @Test
  void rows_noLineBreakAtTheEnd_lastRecordKept() {
    assertThat(Csv.parse("k,v\n1,2")).containsExactly(List.of("k", "v"), List.of("1", "2"));
  }

  @Test
  void column_missing_namesWhatAndTheHeader() {
    assertThatThrownBy(() -> Csv.column(List.of("id", "kernel"), "params", "fleet CSV"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("fleet CSV: no column 'params' in [id, kernel]");
  }
}
