package io.busload.coordinator.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.coordinator.Fixtures;
import io.busload.coordinator.TestDatabase;
import io.busload.protocol.CacheResidency;
import io.busload.protocol.Clocks;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.Energy;
import io.busload.protocol.KernelResult;
import io.busload.protocol.ResultStatus;
import io.busload.protocol.Sampling;
import io.busload.protocol.StopReason;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A result's typed columns, NULL and never 0 where a field was not read, beside its stored JSON: status and sampling
 * (V7, with V7's status for results stored before it) and what a case drew (V13).
 */
class ResultColumnsStoreTest {
  private static final DeviceInfo GPU = Fixtures.gpu("h1", 0);

  @RegisterExtension final OpenDatabase database = new OpenDatabase();
  private final ResultStore store = new ResultStore(database.db());

  @Test
  void insertResults_withAndWithoutSampling_columnsHoldTheTypedFieldsOrNull() throws Exception {
    KernelResult timed = Fixtures.result("s1", "r1", "a1", GPU, 4, true, Instant.now()).withSampling(
        ResultStatus.MEASURED, new Sampling(7, 2, 1, StopReason.TIME_CAP,
            new Clocks(Clocks.Reading.READ, "NVML, driver 580.82.07", 1755, 1980, 2619, 2619, 0x4L, 3, true),
            CacheResidency.of(8L << 20, GPU.l2Bytes(), false)));
    KernelResult failed = Fixtures.result("s1", "r1", "a1", GPU, 8, false, Instant.now());

    store.insertResults(List.of(timed, failed), Instant.now());

    try (Connection c = database.connect(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT status, held_samples, unheld_samples, retimed_samples, stop_reason,"
            + " clocks_reading, sm_clock_min_mhz, sm_clock_max_mhz, throttle_reasons, throttled_samples_dropped,"
            + " too_few_clean_samples, cache_residency, working_set_bytes FROM results WHERE id = '" + timed.id() + "'")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).isEqualTo("MEASURED");
      assertThat(List.of(rs.getInt(2), rs.getInt(3), rs.getInt(4))).containsExactly(7, 2, 1);
      assertThat(rs.getString(5)).isEqualTo("TIME_CAP");
      assertThat(rs.getString(6)).isEqualTo("READ");
      assertThat(List.of(rs.getInt(7), rs.getInt(8))).containsExactly(1755, 1980);
      assertThat(rs.getLong(9)).isEqualTo(0x4L);
      assertThat(rs.getInt(10)).isEqualTo(3);
      assertThat(rs.getBoolean(11)).isTrue();
      assertThat(rs.getString(12)).isEqualTo(timed.sampling().cache().residency().name());
      assertThat(rs.getLong(13)).isEqualTo(8L << 20);
    }
    assertThat(database.text("SELECT status || ' ' || coalesce(stop_reason, 'null') || ' '"
        + " || coalesce(held_samples::text, 'null') FROM results WHERE id = '" + failed.id() + "'"))
        .isEqualTo("DEVICE_FAILED null null");
    // result_json is packed since V8 (ResultJson), so the JSON is read back unpacked rather than cast in SQL.
    JsonObject json = new JsonObject(database.resultJson("SELECT result_json FROM results WHERE id = '" + timed.id()
        + "'"));
    assertThat(json.getJsonObject("sampling").getJsonObject("clocks").getInteger("throttledSamplesDropped"))
        .isEqualTo(3);
  }

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

  /** Results stored by V6 get the status their fields imply, as ResultStatus.legacy derives it in Java. */
  @Test
  void migrateToV7_resultsStoredBefore_statusFromTheirFields() throws Exception {
    DatabaseSettings old = TestDatabase.fresh();
    Flyway.configure().dataSource(old.jdbcUrl(), old.user(), old.password()).locations("classpath:db/migration")
        .target("6").load().migrate();
    try (Connection c = DriverManager.getConnection(old.jdbcUrl(), old.user(), old.password());
        Statement s = c.createStatement()) {
      insertV6(s, "00000000-0000-0000-0000-000000000001", true, "median of 3", "[]");
      insertV6(s, "00000000-0000-0000-0000-000000000002", false, "skipped: size: needs 9 GB", "[\"skipped: size\"]");
      insertV6(s, "00000000-0000-0000-0000-000000000003", false, "unavailable: no cuBLAS", "[\"no cuBLAS\"]");
      insertV6(s, "00000000-0000-0000-0000-000000000004", false, "no timing",
          "[\"out[7]: expected 1, got 2\", \"1 of 64 elements differ\"]");
      insertV6(s, "00000000-0000-0000-0000-000000000005", false, "no timing", "[\"CUDA_ERROR_ILLEGAL_ADDRESS\"]");
    }

    Database migrated = Database.open(old, Path.of("target", "no-data-dir"));
    try (Connection c = DriverManager.getConnection(old.jdbcUrl(), old.user(), old.password());
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT status, stop_reason FROM results ORDER BY id")) {
      List<String> statuses = new java.util.ArrayList<>();
      while (rs.next()) {
        statuses.add(rs.getString(1) + (rs.getString(2) == null ? "" : " " + rs.getString(2)));
      }
      assertThat(statuses).containsExactly("MEASURED", "SKIPPED", "UNAVAILABLE", "CHECK_FAILED", "DEVICE_FAILED");
    } finally {
      migrated.close();
    }
  }

  private static void insertV6(Statement s, String id, boolean valid, String method, String mismatches)
      throws Exception {
    String json = "{\"id\":\"" + id + "\",\"valid\":" + valid + ",\"method\":\"" + method + "\",\"mismatches\":"
        + mismatches.replace("'", "''") + "}";
    s.execute("INSERT INTO results (id, device_id, fingerprint, kernel, params, valid, median_seconds, min_seconds,"
        + " max_seconds, relative_spread, launches_per_sample, bytes, measured_at, stored_at, result_json, model,"
        + " samples) VALUES ('" + id + "', 'h1/cuda:0', 'f', 'k', 'p', " + valid + ", 0, 0, 0, 0, 0, 0, now(), now(), '"
        + json + "', 'm', '{}')");
  }
}
