package io.busload.coordinator.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.coordinator.Fixtures;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Results on a real PostgreSQL: a fresh database on the shared test server. */
class ResultStoreTest {
  private static final DeviceInfo GPU = Fixtures.gpu("h1", 0);

  @RegisterExtension final OpenDatabase database = new OpenDatabase();
  private ResultStore store = new ResultStore(database.db());

  @Test
  void insertResult_sameIdTwice_storesOneRowAndReportsOnlyTheFirstAsNew() throws Exception {
    KernelResult result = Fixtures.result("s1", "r1", "a1", GPU, 4, true, Instant.now());

    boolean first = store.insertResult(result, Instant.now());
    boolean second = store.insertResult(result, Instant.now());

    assertThat(first).isTrue();
    assertThat(second).isFalse();
    assertThat(store.resultCount()).isEqualTo(1);
    assertThat(database.count("SELECT cardinality(samples) FROM result_samples")).isEqualTo(3);
  }

  @Test
  void insertResult_reopened_resultSamplesAndJsonRemain() {
    KernelResult result = Fixtures.result("s1", "r1", "a1", GPU, 8, false, Instant.now());
    store.insertResult(result, Instant.now());

    store = new ResultStore(database.reopen());

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
      store.insertResult(r, Instant.now());
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
  void insertResults_batchWithRedeliveredAndRepeatedIds_returnsOnlyTheNewOnes() {
    KernelResult old = Fixtures.result("s1", "r1", "a1", GPU, 1, true, Instant.now());
    store.insertResult(old, Instant.now());
    KernelResult fresh = Fixtures.result("s1", "r1", "a1", GPU, 2, true, Instant.now());
    KernelResult invalid = Fixtures.result("s1", "r1", "a1", GPU, 4, false, Instant.now());

    var inserted = store.insertResults(List.of(old, fresh, invalid, fresh), Instant.now());

    assertThat(inserted).containsExactlyInAnyOrder(fresh.id(), invalid.id());
    assertThat(store.resultCount()).isEqualTo(3);
  }

  @Test
  void insertIncoming_givenJsonAndUnevenSamples_eachRowGetsItsOwnSamplesColumnsAndJson() throws Exception {
    KernelResult none = withSamples(Fixtures.result("s1", "r1", "a1", GPU, 1, true, Instant.now()), List.of());
    KernelResult five = withSamples(Fixtures.result("s1", "r1", "a1", GPU, 2, true, Instant.now()),
        List.of(1.0e-4, 2.0e-4, 3.0e-4, 4.0e-4, 0.1 + 0.2));
    KernelResult invalid = Fixtures.result("s1", "r1", "a1", GPU, 4, false, Instant.now());
    // As an agent might have sent it (indented, here): its samples are kept in result_samples, the rest of the
    // record in result_json, so that the samples can age out apart from it.
    String given = JsonCodec.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(five);
    var inserted = store.insertIncoming(List.of(new ResultStore.Incoming(none, null),
        new ResultStore.Incoming(five, given.getBytes(StandardCharsets.UTF_8)), new ResultStore.Incoming(invalid, null)),
        Instant.now());

    assertThat(inserted).containsExactlyInAnyOrder(none.id(), five.id(), invalid.id());
    assertThat(store.samples(none.id())).isEmpty();
    assertThat(store.samples(five.id())).isEqualTo(five.samples());
    assertThat(store.samples(invalid.id())).isEqualTo(invalid.samples());
    assertThat(database.resultJson("SELECT result_json FROM results WHERE id = '" + five.id() + "'"))
        .isEqualTo(new String(JsonCodec.toJson(withSamples(five, List.of())), StandardCharsets.UTF_8));
    assertThat(store.results(new ResultQuery(null, null, null, null, null, null, null, 10), null, 10).stream()
        .filter(r -> r.id().equals(five.id())).findFirst().orElseThrow().json())
        .isEqualTo(new String(JsonCodec.toJson(five), StandardCharsets.UTF_8));
    // Kept compressed: what PostgreSQL holds is well under the JSON's size.
    assertThat(database.count("SELECT octet_length(result_json) FROM results WHERE id = '" + five.id() + "'"))
        .isLessThan(given.length() / 2);
    assertThat(database.resultJson("SELECT result_json FROM results WHERE id = '" + none.id() + "'"))
        .isEqualTo(new String(JsonCodec.toJson(none), StandardCharsets.UTF_8));
    try (Connection c = database.connect();
        ResultSet rs = c.createStatement().executeQuery("SELECT bandwidth, valid, median_seconds, max_seconds,"
            + " launches_per_sample, bytes, params, u.fingerprint, model, measured_at FROM results r"
            + " JOIN result_setups u ON u.key = r.setup_key WHERE id = '" + five.id() + "'")) {
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
    assertThat(database.text("SELECT coalesce(bandwidth::text, 'null') FROM results WHERE id = '" + invalid.id() + "'"))
        .isEqualTo("null");
  }

  private static KernelResult withSamples(KernelResult r, List<Double> samples) {
    return KernelResult.builder().schemaVersion(r.schemaVersion()).id(r.id()).runId(r.runId()).sweepId(r.sweepId())
        .agentId(r.agentId()).agentVersion(r.agentVersion()).fatbinHash(r.fatbinHash()).device(r.device())
        .suite(r.suite()).kernel(r.kernel()).params(r.params()).valid(r.valid()).mismatches(r.mismatches())
        .medianSeconds(r.medianSeconds()).minSeconds(r.minSeconds()).maxSeconds(r.maxSeconds())
        .relativeSpread(r.relativeSpread()).samples(samples).launchesPerSample(r.launchesPerSample())
        .warmupLaunches(r.warmupLaunches()).bytesRead(r.bytesRead()).bytesWritten(r.bytesWritten()).bytes(r.bytes())
        .bandwidth(r.bandwidth()).method(r.method()).measuredAt(r.measuredAt()).build();
  }
}
