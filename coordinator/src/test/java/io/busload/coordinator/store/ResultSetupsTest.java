package io.busload.coordinator.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.coordinator.Fixtures;
import io.busload.coordinator.TestDatabase;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What results of one device under one agent build share is kept once, in result_setups (V20), on a real
 * PostgreSQL: new rows name their setup by key and hold NULL in its columns; rows stored before V20 keep their own
 * copies; every reader answers the same for either kind.
 */
class ResultSetupsTest {
  private static final Path NO_DATA_DIR = Path.of("target", "no-data-dir");
  private static final DeviceInfo GPU = Fixtures.gpu("h1", 0);
  private static final DeviceInfo OTHER = Fixtures.gpu("h2", 1);

  @Test
  void migrationV20_resultsStoredAtV19_readTheSameAsResultsStoredThroughSetups() throws Exception {
    Instant now = Instant.now();
    List<KernelResult> old = new ArrayList<>();
    List<KernelResult> later = new ArrayList<>();
    for (int day = 10; day >= 1; day--) {
      old.add(Fixtures.result("s1", "r1", "h1", GPU, 4, true, now.minus(Duration.ofDays(day + 20))));
      old.add(Fixtures.result("s1", "r2", "h2", OTHER, 4, true, now.minus(Duration.ofDays(day + 20))));
      later.add(Fixtures.result("s2", "r3", "h1", GPU, 4, true, now.minus(Duration.ofDays(day))));
    }
    old.add(Fixtures.result("s1", "r1", "h1", GPU, 8, false, now.minus(Duration.ofDays(25))));
    // A later agent build on the same device: its results have a setup of their own.
    KernelResult upgraded = Fixtures.result("s3", "r4", "h1", GPU, 4, true, now.minus(Duration.ofHours(1)))
        .toBuilder().agentVersion("0.2.0").fatbinHash("fatbin-def").build();
    later.add(upgraded);

    // One store as a coordinator upgraded to V20 holds it: the old results written as V19 wrote them, the later ones
    // through V20; the other with every result stored through V20.
    DatabaseSettings upgradedStore = TestDatabase.fresh();
    try (Database v19 = Database.open(upgradedStore, NO_DATA_DIR, "19"); Connection c = connect(upgradedStore)) {
      for (KernelResult r : old) {
        insertAsV19(c, r, now);
      }
    }
    DatabaseSettings freshStore = TestDatabase.fresh();
    try (Database a = Database.open(upgradedStore, NO_DATA_DIR); Database b = Database.open(freshStore, NO_DATA_DIR);
        Connection ca = connect(upgradedStore); Connection cb = connect(freshStore)) {
      new ResultStore(a).insertResults(later, now);
      new ResultStore(b).insertResults(old, now);
      new ResultStore(b).insertResults(later, now);

      assertThat(TestDatabase.first(ca, "SELECT count(*) FROM results WHERE setup_key IS NULL"))
          .isEqualTo(String.valueOf(old.size()));
      assertThat(TestDatabase.first(ca, "SELECT count(*) FROM results WHERE setup_key IS NOT NULL"
          + " AND fingerprint IS NULL AND fatbin_hash IS NULL AND method IS NOT NULL"))
          .isEqualTo(String.valueOf(later.size()));
      assertThat(answers(a, now)).isEqualTo(answers(b, now));
      assertThat(answers(a, now).toString()).contains("fatbin-def", "fatbin-abc", GPU.fingerprint(),
          OTHER.fingerprint(), "10 launches per event pair");
      // Both stores could agree and both be wrong: each shared column, read from a row of either kind, is its own.
      for (Database db : List.of(a, b)) {
        String params = Params.text(upgraded.params());
        assertThat(new ComparisonStore(db).comparison(upgraded.kernel(), params))
            .extracting(ComparisonStore.ComparisonRow::theoreticalPeak)
            .containsExactly(GPU.theoreticalPeakBytesPerSecond());
        assertThat(new ComparisonStore(db).history(GPU.id(), upgraded.kernel(), params, now, 100))
            .extracting(p -> p.driverVersion() + " " + p.agentVersion() + " " + p.fatbinHash())
            .containsOnly(GPU.driverVersion() + " 0.2.0 fatbin-def", GPU.driverVersion() + " 0.1.0 fatbin-abc")
            .hasSize(21);
        assertThat(new VerdictStore(db).series(OTHER.id(), upgraded.kernel(), params, null, now, 100))
            .extracting(VerdictStore.Point::fingerprint).hasSize(10).containsOnly(OTHER.fingerprint());
        assertThat(new VerdictStore(db).figures(now.minus(Duration.ofDays(60)), 5))
            .extracting(VerdictStore.Figure::driverVersion).isNotEmpty().containsOnly(GPU.driverVersion());
      }

      // A sender that lost its ack sends a result stored at V19 again: the same record, no conflict, nothing stored.
      List<ResultStore.Incoming> again = old.stream().map(r -> new ResultStore.Incoming(r, null)).toList();
      ResultStore.Outcome outcome = new ResultStore(a).storeIncoming(again, now);
      assertThat(outcome.fresh()).isEmpty();
      assertThat(outcome.conflicts()).isEmpty();
    }
  }

  @Test
  void insertResults_resultsOfOneSetup_sharedColumnsStoredOnce() throws Exception {
    DatabaseSettings settings = TestDatabase.fresh();
    Instant now = Instant.now();
    List<KernelResult> batch = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      batch.add(Fixtures.result("s1", "r1", "h1", GPU, 1L << (i % 8), true, now.minusSeconds(i)));
    }
    try (Database db = Database.open(settings, NO_DATA_DIR); Connection c = connect(settings)) {
      ResultStore store = new ResultStore(db);
      store.insertResults(batch, now);
      store.insertResults(List.of(Fixtures.result("s2", "r2", "h1", GPU, 2, true, now)), now);
      assertThat(TestDatabase.first(c, "SELECT count(*) FROM result_setups")).isEqualTo("1");
      assertThat(TestDatabase.first(c, "SELECT count(DISTINCT setup_key) || ' ' || count(*) FROM results"
          + " WHERE agent_id IS NULL AND fingerprint IS NULL AND suite IS NULL AND theoretical_peak IS NULL"
          + " AND driver_version IS NULL AND agent_version IS NULL AND fatbin_hash IS NULL"))
          .isEqualTo("1 51");
      assertThat(TestDatabase.first(c, "SELECT concat_ws('|', agent_id, fingerprint, suite, theoretical_peak,"
          + " driver_version, agent_version, fatbin_hash) FROM result_setups"))
          .isEqualTo(String.join("|", "h1", GPU.fingerprint(), "stride",
              TestDatabase.first(c, "SELECT " + GPU.theoreticalPeakBytesPerSecond() + "::float8::text"),
              GPU.driverVersion(), "0.1.0", "fatbin-abc"));
    }
  }

  @Test
  void setupDigest_fieldsThatRunTogetherOrNullAgainstEmpty_differ() throws Exception {
    DatabaseSettings settings = TestDatabase.fresh();
    try (Database db = Database.open(settings, NO_DATA_DIR); Connection c = connect(settings)) {
      // Without each field's length, ('ab', 'c') and ('a', 'bc') would be one setup, and so would NULL and ''.
      assertThat(TestDatabase.first(c, "SELECT result_setup_digest('ab', 'c', 's', 1, 'd', 'v', 'f')"
          + " = result_setup_digest('a', 'bc', 's', 1, 'd', 'v', 'f')")).isEqualTo("f");
      assertThat(TestDatabase.first(c, "SELECT result_setup_digest(NULL, 'c', 's', 1, 'd', 'v', 'f')"
          + " = result_setup_digest('', 'c', 's', 1, 'd', 'v', 'f')")).isEqualTo("f");
      assertThat(TestDatabase.first(c, "SELECT result_setup_digest('a', 'c', 's', NULL, 'd', 'v', 'f')"
          + " = result_setup_digest('a', 'c', 's', 0, 'd', 'v', 'f')")).isEqualTo("f");
      // Agents write a method sentence per result: two results of one setup keep their own.
      Instant now = Instant.now();
      KernelResult one = Fixtures.result("s1", "r1", "h1", GPU, 4, true, now.minusSeconds(2));
      KernelResult two = Fixtures.result("s1", "r1", "h1", GPU, 4, true, now.minusSeconds(1)).toBuilder()
          .method(one.method() + ", re-timed").build();
      new ResultStore(db).insertResults(List.of(one, two), now);
      assertThat(new ComparisonStore(db).history(GPU.id(), one.kernel(), Params.text(one.params()), now, 10))
          .extracting(ComparisonStore.HistoryPoint::method).containsExactly(two.method(), one.method());
      assertThat(TestDatabase.first(c, "SELECT count(*) FROM result_setups")).isEqualTo("1");
    }
  }

  /** What the REST API, the regression check, the verdicts and the cohort check read. */
  private static List<Object> answers(Database db, Instant now) {
    String params = Params.text(Fixtures.result("s", "r", "a", GPU, 4, true, now).params());
    VerdictStore verdicts = new VerdictStore(db);
    ComparisonStore comparisons = new ComparisonStore(db);
    List<Object> answers = new ArrayList<>();
    answers.add(new ResultStore(db).results(new ResultQuery(null, null, null, null, null, null, null, 100), null, 100)
        .stream().map(StoredResult::json).toList());
    for (DeviceInfo device : List.of(GPU, OTHER)) {
      answers.add(comparisons.history(device.id(), "stride_copy_fp32", params, now, 100));
      answers.add(verdicts.series(device.id(), "stride_copy_fp32", params, null, now, 100));
      answers.add(verdicts.deviceLatest(device.id()).stream().map(r -> new String(JsonCodec.toJson(r))).toList());
    }
    answers.add(verdicts.figures(now.minus(Duration.ofDays(60)), 5));
    answers.add(comparisons.comparison("stride_copy_fp32", params));
    return answers;
  }

  /** {@code r} stored as the V19 coordinator stored it: the shared columns in its own row, no setup. */
  private static void insertAsV19(Connection c, KernelResult r, Instant now) throws Exception {
    try (PreparedStatement p = c.prepareStatement("SELECT results_partition_for(?::timestamptz),"
        + " result_samples_partition_for(?::timestamptz)")) {
      p.setString(1, r.measuredAt().toString());
      p.setString(2, r.measuredAt().toString());
      p.executeQuery().close();
    }
    try (PreparedStatement s = c.prepareStatement("WITH i AS (INSERT INTO result_ids (id, measured_at) VALUES"
        + " (?::uuid, ?::timestamptz)), x AS (INSERT INTO result_samples (result_id, measured_at, samples)"
        + " VALUES (?::uuid, ?::timestamptz, ?::float8[])) INSERT INTO results (id, sweep_id, run_id, agent_id,"
        + " device_id, fingerprint, suite, kernel, params, valid, median_seconds, min_seconds, max_seconds,"
        + " relative_spread, launches_per_sample, bytes, bandwidth, measured_at, stored_at, model, theoretical_peak,"
        + " driver_version, agent_version, fatbin_hash, result_json, method, origin, status) VALUES (?::uuid, ?, ?,"
        + " ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::timestamptz, ?::timestamptz, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
      int p = 1;
      s.setString(p++, r.id().toString());
      s.setString(p++, r.measuredAt().toString());
      s.setString(p++, r.id().toString());
      s.setString(p++, r.measuredAt().toString());
      s.setObject(p++, r.samples().stream().mapToDouble(Double::doubleValue).toArray());
      s.setString(p++, r.id().toString());
      s.setString(p++, r.sweepId());
      s.setString(p++, r.runId());
      s.setString(p++, r.agentId());
      s.setString(p++, r.device().id());
      s.setString(p++, r.device().fingerprint());
      s.setString(p++, r.suite());
      s.setString(p++, r.kernel());
      s.setString(p++, Params.text(r.params()));
      s.setBoolean(p++, r.valid());
      s.setDouble(p++, r.medianSeconds());
      s.setDouble(p++, r.minSeconds());
      s.setDouble(p++, r.maxSeconds());
      s.setDouble(p++, r.relativeSpread());
      s.setInt(p++, r.launchesPerSample());
      s.setLong(p++, r.bytes());
      s.setObject(p++, r.bandwidth());
      s.setString(p++, r.measuredAt().toString());
      s.setString(p++, now.toString());
      s.setString(p++, r.device().name());
      s.setDouble(p++, r.device().theoreticalPeakBytesPerSecond());
      s.setString(p++, r.device().driverVersion());
      s.setString(p++, r.agentVersion());
      s.setString(p++, r.fatbinHash());
      s.setBytes(p++, ResultJson.pack(JsonCodec.toJson(StoredSamples.withSamples(r, List.of()))));
      s.setString(p++, r.method());
      s.setString(p++, null);
      s.setString(p, r.status().name());
      s.executeUpdate();
    }
  }

  private static Connection connect(DatabaseSettings settings) throws Exception {
    return TestDatabase.connect(settings);
  }
}
