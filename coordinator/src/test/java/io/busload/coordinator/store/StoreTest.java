package io.busload.coordinator.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.busload.coordinator.Fixtures;
import io.busload.coordinator.TestDatabase;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import io.busload.protocol.Protocol;
import io.busload.protocol.RunStatus;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The store on a real PostgreSQL: a fresh database on the shared test server. */
class StoreTest {
  private static final DeviceInfo GPU = Fixtures.gpu("h1", 0);

  @TempDir Path dir;
  private final DatabaseSettings database = TestDatabase.fresh();
  private Store store;

  @BeforeEach
  void open() {
    store = Store.open(database, dir);
  }

  @AfterEach
  void close() {
    store.close();
  }

  @Test
  void upsertResult_sameIdTwice_storesOneRowAndReportsOnlyTheFirstAsNew() throws Exception {
    KernelResult result = Fixtures.result("s1", "r1", "a1", GPU, 4, true, Instant.now());

    boolean first = store.upsertResult(result, Instant.now());
    boolean second = store.upsertResult(result, Instant.now());

    assertThat(first).isTrue();
    assertThat(second).isFalse();
    assertThat(store.resultCount()).isEqualTo(1);
    assertThat(count("SELECT cardinality(samples) FROM results")).isEqualTo(3);
  }

  @Test
  void upsertResult_reopened_resultSamplesAndJsonRemain() {
    KernelResult result = Fixtures.result("s1", "r1", "a1", GPU, 8, false, Instant.now());
    store.upsertResult(result, Instant.now());
    store.close();

    store = Store.open(database, dir);

    List<StoredResult> page = store.results(new ResultQuery(null, null, null, 10), null, 10);
    assertThat(page).hasSize(1);
    KernelResult read = JsonCodec.fromJson(page.getFirst().json().getBytes(StandardCharsets.UTF_8), KernelResult.class);
    // Compared as text: params hold Object numbers, and JSON does not keep Long apart from Integer.
    assertThat(page.getFirst().json()).isEqualTo(new String(JsonCodec.toJson(result), StandardCharsets.UTF_8));
    assertThat(read.id()).isEqualTo(result.id());
    assertThat(read.measuredAt()).isEqualTo(result.measuredAt());
    assertThat(read.bandwidth()).isNull();
    assertThat(read.mismatches()).containsExactly("index 7: expected 1.5, got 0.0");
    assertThat(store.samples(result.id())).isEqualTo(result.samples());
  }

  @Test
  void results_pagedNewestFirstWithFilters_returnsEachMatchOnce() {
    Instant t0 = Instant.parse("2026-11-01T10:00:00Z");
    List<KernelResult> all = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      // Two results per instant, so paging must break ties by id.
      KernelResult r = Fixtures.result(i % 2 == 0 ? "even" : "odd", "r", "a1", GPU, 1 + i, true, t0.plusSeconds(i / 2));
      store.upsertResult(r, Instant.now());
      all.add(r);
    }
    ResultQuery query = new ResultQuery(null, GPU.id(), "stride_copy_fp32", 100);

    List<StoredResult> read = new ArrayList<>();
    StoredResult after = null;
    for (List<StoredResult> page; !(page = store.results(query, after, 3)).isEmpty(); after = page.getLast()) {
      read.addAll(page);
    }

    assertThat(read).extracting(StoredResult::id).containsExactlyInAnyOrderElementsOf(all.stream().map(KernelResult::id).toList());
    assertThat(read).extracting(StoredResult::measuredAt).isSortedAccordingTo(java.util.Comparator.reverseOrder());
    assertThat(store.results(new ResultQuery("even", null, null, 100), null, 100)).hasSize(4);
    assertThat(store.results(new ResultQuery(null, "elsewhere/cpu", null, 100), null, 100)).isEmpty();
  }

  @Test
  void createSweep_twoDevices_queuesOneRunEachInOrder() {
    store.saveAgent(Fixtures.hello("a1", GPU, Fixtures.cpu("h1")), Instant.now());

    Sweep first = store.createSweep("stride", Map.of("elements", "1024"),
        List.of(new RunTarget(GPU.id(), "a1", 13), new RunTarget("h1/cpu", "a1", 13)), Instant.now());
    Sweep second = store.createSweep("stride", Map.of(), List.of(new RunTarget(GPU.id(), "a1", 13)),
        Instant.now().plusMillis(5));

    assertThat(first.state()).isEqualTo(Sweep.State.QUEUED);
    assertThat(store.sweep(first.id())).get().satisfies(s -> {
      assertThat(s.runs()).extracting(Run::deviceId).containsExactly(GPU.id(), "h1/cpu");
      assertThat(s.options()).containsEntry("elements", "1024");
      assertThat(s.total()).isEqualTo(26);
    });
    assertThat(store.sweeps(10)).extracting(Sweep::id).containsExactly(second.id(), first.id());
    QueuedRun next = store.nextQueuedRun(GPU.id()).orElseThrow();
    assertThat(next.runId()).isEqualTo(first.runs().getFirst().runId());
    assertThat(next.options()).containsEntry("elements", "1024");
  }

  @Test
  void recordStatus_runningAfterDone_keepsDone() {
    Sweep sweep = store.createSweep("stride", Map.of(), List.of(new RunTarget(GPU.id(), "a1", 2)), Instant.now());
    String runId = sweep.runs().getFirst().runId();

    store.recordStatus(Fixtures.status(runId, sweep.id(), "a1", GPU.id(), RunStatus.State.RUNNING, 1, 2), Instant.now());
    store.recordStatus(Fixtures.status(runId, sweep.id(), "a1", GPU.id(), RunStatus.State.DONE, 2, 2), Instant.now());
    Run after = store.recordStatus(
        Fixtures.status(runId, sweep.id(), "a1", GPU.id(), RunStatus.State.RUNNING, 1, 2), Instant.now()).orElseThrow();

    assertThat(after.state()).isEqualTo(RunStatus.State.DONE);
    assertThat(after.completed()).isEqualTo(2);
    assertThat(store.sweep(sweep.id()).orElseThrow().state()).isEqualTo(Sweep.State.DONE);
    assertThat(store.nextQueuedRun(GPU.id())).isEmpty();
  }

  @Test
  void recordStatus_unknownRun_returnsEmpty() {
    assertThat(store.recordStatus(new RunStatus(Protocol.SCHEMA_VERSION, "nope", null, "a1", GPU.id(),
        RunStatus.State.DONE, 0, 0, null, Instant.now()), Instant.now())).isEmpty();
  }

  @Test
  void saveAgent_seenTwice_keepsOneAgentWithItsDevices() {
    store.saveAgent(Fixtures.hello("a1", GPU), Instant.now());
    store.saveAgent(Fixtures.hello("a1", GPU, Fixtures.cpu("h1")), Instant.now());

    List<KnownAgent> agents = store.agents();

    assertThat(agents).singleElement().satisfies(a -> assertThat(a.devices()).containsExactlyInAnyOrder(GPU, Fixtures.cpu("h1")));
  }

  @Test
  void anyCall_onEventLoop_isRefused() throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      Throwable failure = vertx.getOrCreateContext().<Long>executeBlocking(() -> 0L)
          .compose(v -> {
            try {
              store.resultCount();
              return io.vertx.core.Future.<Throwable>succeededFuture(null);
            } catch (IllegalStateException e) {
              return io.vertx.core.Future.succeededFuture(e);
            }
          }).await(10, TimeUnit.SECONDS);
      assertThat(failure).isInstanceOf(IllegalStateException.class).hasMessageContaining("event-loop");
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void endRun_notAFinalState_isRefused() {
    assertThatThrownBy(() -> store.endRun("r", RunStatus.State.RUNNING, "x", Instant.now()))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void open_embeddedTwiceOnSameDataDir_startsPostgresqlAndKeepsRows() {
    Path data = dir.resolve("embedded");
    KernelResult result = Fixtures.result("s1", "r1", "a1", GPU, 2, true, Instant.now());
    try (Store embedded = Store.open(data)) {
      embedded.upsertResult(result, Instant.now());
    }

    try (Store again = Store.open(data)) {
      assertThat(again.resultCount()).isEqualTo(1);
      assertThat(again.samples(result.id())).isEqualTo(result.samples());
    }
  }

  @Test
  void upsertResults_batchWithRedeliveredAndRepeatedIds_returnsOnlyTheNewOnes() {
    KernelResult old = Fixtures.result("s1", "r1", "a1", GPU, 1, true, Instant.now());
    store.upsertResult(old, Instant.now());
    KernelResult fresh = Fixtures.result("s1", "r1", "a1", GPU, 2, true, Instant.now());
    KernelResult invalid = Fixtures.result("s1", "r1", "a1", GPU, 4, false, Instant.now());

    var inserted = store.upsertResults(List.of(old, fresh, invalid, fresh), Instant.now());

    assertThat(inserted).containsExactlyInAnyOrder(fresh.id(), invalid.id());
    assertThat(store.resultCount()).isEqualTo(3);
  }

  @Test
  void upsertIncoming_givenJsonAndUnevenSamples_eachRowGetsItsOwnSamplesColumnsAndJson() throws Exception {
    KernelResult none = withSamples(Fixtures.result("s1", "r1", "a1", GPU, 1, true, Instant.now()), List.of());
    KernelResult five = withSamples(Fixtures.result("s1", "r1", "a1", GPU, 2, true, Instant.now()),
        List.of(1.0e-4, 2.0e-4, 3.0e-4, 4.0e-4, 0.1 + 0.2));
    KernelResult invalid = Fixtures.result("s1", "r1", "a1", GPU, 4, false, Instant.now());
    // As an agent might have sent it (indented, here): kept byte for byte.
    String given = JsonCodec.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(five);
    var inserted = store.upsertIncoming(List.of(new Store.Incoming(none, null),
        new Store.Incoming(five, given.getBytes(StandardCharsets.UTF_8)), new Store.Incoming(invalid, null)),
        Instant.now());

    assertThat(inserted).containsExactlyInAnyOrder(none.id(), five.id(), invalid.id());
    assertThat(store.samples(none.id())).isEmpty();
    assertThat(store.samples(five.id())).isEqualTo(five.samples());
    assertThat(store.samples(invalid.id())).isEqualTo(invalid.samples());
    assertThat(text("SELECT result_json FROM results WHERE id = '" + five.id() + "'")).isEqualTo(given);
    assertThat(text("SELECT result_json FROM results WHERE id = '" + none.id() + "'"))
        .isEqualTo(new String(JsonCodec.toJson(none), StandardCharsets.UTF_8));
    try (Connection c = DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
        ResultSet rs = c.createStatement().executeQuery("SELECT bandwidth, valid, median_seconds, max_seconds,"
            + " launches_per_sample, bytes, params, fingerprint, model, measured_at FROM results WHERE id = '"
            + five.id() + "'")) {
      rs.next();
      assertThat(rs.getDouble(1)).isEqualTo(five.bandwidth());
      assertThat(rs.getBoolean(2)).isTrue();
      assertThat(rs.getDouble(3)).isEqualTo(five.medianSeconds());
      assertThat(rs.getDouble(4)).isEqualTo(five.maxSeconds());
      assertThat(rs.getInt(5)).isEqualTo(five.launchesPerSample());
      assertThat(rs.getLong(6)).isEqualTo(five.bytes());
      assertThat(rs.getString(7)).isEqualTo(Params.text(five.params()));
      assertThat(rs.getString(8)).isEqualTo(GPU.fingerprint());
      assertThat(rs.getString(9)).isEqualTo(GPU.name());
      assertThat(rs.getObject(10, java.time.OffsetDateTime.class).toInstant()).isEqualTo(five.measuredAt());
    }
    assertThat(text("SELECT coalesce(bandwidth::text, 'null') FROM results WHERE id = '" + invalid.id() + "'"))
        .isEqualTo("null");
  }

  private static KernelResult withSamples(KernelResult r, List<Double> samples) {
    return new KernelResult(r.schemaVersion(), r.id(), r.runId(), r.sweepId(), r.agentId(), r.agentVersion(),
        r.fatbinHash(), r.device(), r.suite(), r.kernel(), r.params(), r.valid(), r.mismatches(), r.medianSeconds(),
        r.minSeconds(), r.maxSeconds(), r.relativeSpread(), samples, r.launchesPerSample(), r.warmupLaunches(),
        r.bytesRead(), r.bytesWritten(), r.bytes(), r.bandwidth(), r.method(), r.measuredAt());
  }

  private String text(String sql) throws Exception {
    try (Connection c = DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
        ResultSet rs = c.createStatement().executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  private long count(String sql) throws Exception {
    try (Connection c = DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
        ResultSet rs = c.createStatement().executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
