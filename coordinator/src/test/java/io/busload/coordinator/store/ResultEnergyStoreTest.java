package io.busload.coordinator.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.coordinator.Fixtures;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.Energy;
import io.busload.protocol.KernelResult;
import io.vertx.core.json.JsonObject;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What a case drew, in the columns V13 added and in the stored JSON; NULL, never 0, where it was not read. */
class ResultEnergyStoreTest {
  private static final DeviceInfo GPU = Fixtures.gpu("h1", 0);

  @RegisterExtension final OpenDatabase database = new OpenDatabase();
  private final ResultStore store = new ResultStore(database.db());

  @Test
  void insertResults_withAndWithoutEnergy_columnsHoldTheTypedFieldsOrNull() throws Exception {
    KernelResult read = Fixtures.result("s1", "r1", "a1", GPU, 4, true, Instant.now())
        .withEnergy(new Energy(331.8, 316.2, 76.2, 1.049, 9104, 10));
    KernelResult notRead = Fixtures.result("s1", "r1", "a1", GPU, 8, true, Instant.now());

    store.insertResults(List.of(read, notRead), Instant.now());

    try (Connection c = database.connect(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT energy_joules, energy_average_watts, energy_idle_watts,"
            + " energy_window_seconds, energy_launches, energy_counter_steps FROM results WHERE id = '" + read.id()
            + "'")) {
      assertThat(rs.next()).isTrue();
      assertThat(List.of(rs.getDouble(1), rs.getDouble(2), rs.getDouble(3), rs.getDouble(4)))
          .containsExactly(331.8, 316.2, 76.2, 1.049);
      assertThat(rs.getLong(5)).isEqualTo(9104L);
      assertThat(rs.getInt(6)).isEqualTo(10);
    }
    assertThat(database.text("SELECT coalesce(energy_joules::text, 'null') || ' '"
        + " || coalesce(energy_average_watts::text, 'null') || ' ' || coalesce(energy_launches::text, 'null')"
        + " FROM results WHERE id = '" + notRead.id() + "'")).isEqualTo("null null null");
    JsonObject json = new JsonObject(database.resultJson("SELECT result_json FROM results WHERE id = '" + read.id()
        + "'"));
    assertThat(json.getJsonObject("energy").getDouble("joules")).isEqualTo(331.8);
    JsonObject none = new JsonObject(database.resultJson("SELECT result_json FROM results WHERE id = '"
        + notRead.id() + "'"));
    assertThat(none.containsKey("energy")).isFalse();
  }
}
