package io.busload.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.coordinator.Fixtures;
import io.busload.protocol.Energy;
import io.busload.protocol.Health;
import io.busload.protocol.HealthCounters;
import io.busload.protocol.KernelResult;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResultsCsvTest {
  @Test
  void quote_commaOrQuote_quotedWithQuotesDoubled() {
    assertThat(ResultsCsv.quote("Xeon, 2 sockets \"gold\"")).isEqualTo("\"Xeon, 2 sockets \"\"gold\"\"\"");
  }

  @Test
  void quote_plainText_unchanged() {
    assertThat(ResultsCsv.quote("NVIDIA H100")).isEqualTo("NVIDIA H100");
  }

  private static String cell(String row, String column) {
    List<String> cells = List.of(row.strip().split(",(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)", -1));
    assertThat(cells).hasSameSizeAs(ResultsCsv.HEADER);
    return cells.get(ResultsCsv.HEADER.indexOf(column));
  }

  @Test
  void row_resultWithEnergyAndHealth_carriesTheirColumns() {
    HealthCounters start = new HealthCounters(0L, 0L, 3L, 0L, null, null, null, 0L, 0L, false, false, 7L);
    HealthCounters after = new HealthCounters(2L, 0L, 5L, 0L, null, null, null, 0L, 0L, false, false, 9L);
    KernelResult r = Fixtures.result("s", "run-s", "a1", Fixtures.gpu("g", 0), 1, true, Instant.now())
        .withEnergy(new Energy(120.0, 600.0, 75.0, 0.2, 1000, 5))
        .withHealth(new Health(start, after, List.of(79L), "NVML, driver 580.82.07"));

    String row = ResultsCsv.row(r);

    assertThat(cell(row, "energy")).isEqualTo("read");
    assertThat(cell(row, "energyJoules")).isEqualTo("120.0");
    assertThat(cell(row, "energyAverageWatts")).isEqualTo("600.0");
    assertThat(cell(row, "health")).isEqualTo("read");
    assertThat(cell(row, "healthAfterCase")).contains("\"\"eccVolatileCorrected\"\":2").contains("\"\"pcieReplays\"\":9");
    assertThat(cell(row, "xidEvents")).isEqualTo("[79]");
  }

  @Test
  void row_resultWithoutEnergyOrHealth_saysNotReadAndLeavesFiguresEmpty() {
    KernelResult r = Fixtures.result("s", "run-s", "a1", Fixtures.gpu("g", 0), 1, true, Instant.now());

    String row = ResultsCsv.row(r);

    assertThat(cell(row, "energy")).isEqualTo("not read");
    assertThat(cell(row, "energyJoules")).isEmpty();
    assertThat(cell(row, "health")).isEqualTo("not read");
    assertThat(cell(row, "healthAfterCase")).isEmpty();
    assertThat(cell(row, "xidEvents")).isEmpty();
  }
}
