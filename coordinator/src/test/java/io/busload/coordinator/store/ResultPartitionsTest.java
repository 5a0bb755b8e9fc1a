package io.busload.coordinator.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.busload.coordinator.Fixtures;
import io.busload.coordinator.TestDatabase;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The results table's partitions on a real PostgreSQL: V8 converts a store that holds results (schema V6, one table,
 * JSON as text,
 * then V7's status and sampling columns) into monthly partitions without losing a row, a field, a counter or a V7
 * column, constraint or index; new months get their partitions as results of
 * them arrive; a redelivered result is still stored once; stored JSON is compressed and comes back byte for byte.
 */
class ResultPartitionsTest {
  private static final Path NO_DATA_DIR = Path.of("target", "no-data-dir");
  private static final DeviceInfo GPU = Fixtures.gpu("h1", 0);

  @Test
  void migrationV8_storeWithResults_everyResultKeptInItsMonthsPartition() throws Exception {
    DatabaseSettings settings = TestDatabase.fresh();
    KernelResult march = Fixtures.result("s1", "r1", "a1", GPU, 4, true, Instant.parse("2026-03-31T23:59:59.5Z"));
    KernelResult april = Fixtures.result("s1", "r1", "a1", GPU, 8, true, Instant.parse("2026-04-01T00:00:00Z"));
    try (Database old = Database.open(settings, NO_DATA_DIR, "6"); Connection c = connect(settings)) {
      for (KernelResult r : List.of(march, april)) {
        insertAsV6(c, r);
      }
      c.createStatement().execute("INSERT INTO result_counters (result_id, flagged, flags, kernels) VALUES ('"
          + march.id() + "', true, '{}', '{}')");
    }

    try (Database db = Database.open(settings, NO_DATA_DIR); Connection c = connect(settings)) {
      assertThat(text(c, "SELECT relkind::text FROM pg_class WHERE relname = 'results'")).isEqualTo("p");
      assertThat(text(c, "SELECT string_agg(relid::text, ',' ORDER BY relid::text) FROM pg_partition_tree('results')"
          + " WHERE isleaf")).isEqualTo("results_2026_03,results_2026_04");
      ResultStore store = new ResultStore(db);
      List<StoredResult> stored = store.results(new ResultQuery(null, null, null, 10), null, 10);
      assertThat(stored).extracting(StoredResult::json).containsExactly(
          new String(JsonCodec.toJson(april), StandardCharsets.UTF_8),
          new String(JsonCodec.toJson(march), StandardCharsets.UTF_8));
      assertThat(store.samples(march.id())).isEqualTo(march.samples());
      assertThat(text(c, "SELECT method FROM results WHERE id = '" + march.id() + "'")).isEqualTo(march.method());
      assertThat(text(c, "SELECT count(*) FROM result_counters WHERE flagged")).isEqualTo("1");
      // V7's columns came along: the status it backfilled, NOT NULL still, and its partial indexes.
      assertThat(text(c, "SELECT string_agg(DISTINCT status, ',') FROM results")).isEqualTo("MEASURED");
      assertThat(text(c, "SELECT attnotnull::text FROM pg_attribute WHERE attrelid = 'results'::regclass"
          + " AND attname = 'status'")).isEqualTo("true");
      assertThat(text(c, "SELECT string_agg(indexname, ',' ORDER BY indexname) FROM pg_indexes"
          + " WHERE tablename = 'results' AND indexname IN ('results_throttled', 'results_cache_resident')"))
          .isEqualTo("results_cache_resident,results_throttled");

      // Redelivered: the same record again stores nothing.
      assertThat(store.insertResult(march, Instant.now())).isFalse();
      // A month without a partition gets one.
      KernelResult june = Fixtures.result("s2", "r2", "a1", GPU, 2, true, Instant.parse("2026-06-15T12:00:00Z"));
      assertThat(store.insertResult(june, Instant.now())).isTrue();
      assertThat(text(c, "SELECT count(*) FROM pg_partition_tree('results') WHERE isleaf")).isEqualTo("3");
      assertThat(text(c, "SELECT tableoid::regclass::text FROM results WHERE id = '" + june.id() + "'"))
          .isEqualTo("results_2026_06");
      assertThat(store.resultCount()).isEqualTo(3);
    }
  }

  /**
   * V8's key (id, measured_at) let the same id in twice under two months. V10 keeps the copy stored first (the one
   * its sender was acked for), takes its id in result_ids, and from then on the id is refused under any other time
   * in any month, in a batch or alone, while the same record again is no conflict.
   */
  @Test
  void migrationV10_idStoredUnderTwoMonths_firstKeptAndTheIdTakenAcrossPartitions() throws Exception {
    DatabaseSettings settings = TestDatabase.fresh();
    KernelResult march = Fixtures.result("s1", "r1", "a1", GPU, 4, true, Instant.parse("2026-03-31T23:59:59.5Z"));
    try (Database old = Database.open(settings, NO_DATA_DIR, "6"); Connection c = connect(settings)) {
      insertAsV6(c, march);
    }
    try (Database v9 = Database.open(settings, NO_DATA_DIR, "9"); Connection c = connect(settings)) {
      c.createStatement().execute("CREATE TEMP TABLE again AS SELECT * FROM results");
      c.createStatement().execute("UPDATE again SET measured_at = measured_at + INTERVAL '40 days',"
          + " stored_at = stored_at + INTERVAL '1 hour'");
      c.createStatement().execute("SELECT results_partition_for(measured_at) FROM again");
      c.createStatement().execute("INSERT INTO results SELECT * FROM again");
      assertThat(text(c, "SELECT count(*) FROM results WHERE id = '" + march.id() + "'")).isEqualTo("2");
    }

    try (Database db = Database.open(settings, NO_DATA_DIR); Connection c = connect(settings)) {
      assertThat(text(c, "SELECT string_agg(tableoid::regclass::text, ',') FROM results WHERE id = '" + march.id()
          + "'")).isEqualTo("results_2026_03");
      assertThat(text(c, "SELECT count(*) FROM result_ids")).isEqualTo("1");
      ResultStore store = new ResultStore(db);
      KernelResult june = Fixtures.withMeasuredAt(march, Instant.parse("2026-06-15T12:00:00Z"));
      KernelResult other = Fixtures.result("s1", "r1", "a1", GPU, 8, true, Instant.parse("2026-06-15T12:00:01Z"));

      ResultStore.Outcome alone = store.storeIncoming(List.of(new ResultStore.Incoming(june, null)), Instant.now());
      ResultStore.Outcome batch = store.storeIncoming(List.of(new ResultStore.Incoming(other, null),
          new ResultStore.Incoming(march, null), new ResultStore.Incoming(june, null),
          new ResultStore.Incoming(Fixtures.withMeasuredAt(other, Instant.parse("2026-07-01T00:00:00Z")), null)),
          Instant.now());

      assertThat(alone.fresh()).isEmpty();
      assertThat(alone.conflicts()).containsExactly(org.assertj.core.api.Assertions.entry(0, "measuredAt differs"));
      assertThat(batch.fresh()).containsExactly(other.id());
      assertThat(batch.conflicts()).as("the same record again is no conflict; another time is, in the batch too")
          .containsOnlyKeys(2, 3);
      assertThat(text(c, "SELECT count(*) FROM results")).isEqualTo("2");
      assertThat(text(c, "SELECT count(*) FROM result_ids")).isEqualTo("2");
    }
  }

  @Test
  void resultJson_packed_comesBackByteForByteAndSmaller() {
    byte[] json = JsonCodec.toJson(Fixtures.result("s1", "r1", "a1", GPU, 16, true, Instant.now()));

    byte[] packed = ResultJson.pack(json);

    assertThat(ResultJson.bytes(packed)).isEqualTo(json);
    assertThat(packed.length).isLessThan(json.length / 2);
    byte[] plain = new byte[json.length + 1];
    System.arraycopy(json, 0, plain, 1, json.length);
    assertThat(ResultJson.bytes(plain)).isEqualTo(json);
    assertThatThrownBy(() -> ResultJson.bytes(new byte[] {7, 1, 2})).hasMessageContaining("unknown format tag 7");
  }

  /** A result as the coordinator stored it before V8: JSON as text, no method or origin column. */
  private static void insertAsV6(Connection c, KernelResult r) throws Exception {
    try (PreparedStatement s = c.prepareStatement("INSERT INTO results (id, sweep_id, run_id, agent_id, device_id,"
        + " fingerprint, suite, kernel, params, valid, median_seconds, min_seconds, max_seconds, relative_spread,"
        + " launches_per_sample, bytes, bandwidth, measured_at, stored_at, result_json, model, samples)"
        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, true, ?, ?, ?, ?, ?, ?, ?, ?, now(), ?, ?, ?)")) {
      s.setObject(1, r.id());
      s.setString(2, r.sweepId());
      s.setString(3, r.runId());
      s.setString(4, r.agentId());
      s.setString(5, r.device().id());
      s.setString(6, r.device().fingerprint());
      s.setString(7, r.suite());
      s.setString(8, r.kernel());
      s.setString(9, Params.text(r.params()));
      s.setDouble(10, r.medianSeconds());
      s.setDouble(11, r.minSeconds());
      s.setDouble(12, r.maxSeconds());
      s.setDouble(13, r.relativeSpread());
      s.setInt(14, r.launchesPerSample());
      s.setLong(15, r.bytes());
      s.setDouble(16, r.bandwidth());
      s.setObject(17, Database.timestamp(r.measuredAt()));
      s.setString(18, new String(JsonCodec.toJson(r), StandardCharsets.UTF_8));
      s.setString(19, r.device().name());
      s.setArray(20, c.createArrayOf("float8", r.samples().toArray()));
      s.executeUpdate();
    }
  }

  private static Connection connect(DatabaseSettings s) throws Exception {
    return TestDatabase.connect(s);
  }

  private static String text(Connection c, String sql) throws Exception {
    return TestDatabase.first(c, sql);
  }
}
