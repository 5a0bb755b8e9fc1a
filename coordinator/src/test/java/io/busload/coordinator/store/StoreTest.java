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

  private long count(String sql) throws Exception {
    try (Connection c = DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
        ResultSet rs = c.createStatement().executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
