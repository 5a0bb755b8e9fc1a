package io.busload.coordinator.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.busload.coordinator.Fixtures;
import io.busload.protocol.Counters;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Profiled results' counters in result_counters (V3), on a real PostgreSQL: a fresh database per test. */
class ResultCountersTest {
  private static final DeviceInfo GPU = Fixtures.gpu("h1", 0);
  static final Counters FLAGGED = new Counters(8.0, 4.0, 4.0, 4.0, 8.47e6, 8.388608e6, null, 4.194304e6, true,
      List.of("loads: 8.00 sectors/request measured, 4.00 modelled"), List.of("busload_stride_copy_f32"),
      "ncu, one launch");

  @RegisterExtension final OpenDatabase database = new OpenDatabase();
  private final ResultStore store = new ResultStore(database.db());

  private KernelResult profiled(long stride) {
    return Fixtures.result("s1", "r1", "a1", GPU, stride, true, Instant.now()).withCounters(FLAGGED);
  }

  @Test
  void insertResults_profiledAndNot_oneCountersRowPerProfiledResultWithEveryFigure() throws Exception {
    KernelResult withCounters = profiled(1);
    KernelResult without = Fixtures.result("s1", "r1", "a1", GPU, 2, true, Instant.now());

    store.insertResults(List.of(withCounters, without), Instant.now());

    assertThat(database.text("SELECT count(*) FROM result_counters")).isEqualTo("1");
    assertThat(database.text("SELECT concat_ws('|', load_sectors_per_request, model_load_sectors_per_request,"
        + " store_sectors_per_request, model_store_sectors_per_request, dram_bytes_read, model_dram_bytes_read,"
        + " coalesce(dram_bytes_written::text, 'null'), model_dram_bytes_written, flagged, flags[1], kernels[1],"
        + " method) FROM result_counters WHERE result_id = '" + withCounters.id() + "'"))
        .isEqualTo("8|4|4|4|8470000|8388608|null|4194304|t|loads: 8.00 sectors/request measured, 4.00 modelled"
            + "|busload_stride_copy_f32|ncu, one launch");
    assertThat(ResultCounters.read(database.db(), List.of(withCounters.id(), without.id())))
        .containsExactly(Map.entry(withCounters.id(), FLAGGED));
  }

  @Test
  void insertResult_redelivered_stillOneRow() throws Exception {
    KernelResult result = profiled(1);

    store.insertResult(result, Instant.now());
    store.insertResult(result, Instant.now());

    assertThat(database.text("SELECT count(*) FROM result_counters")).isEqualTo("1");
  }

  @Test
  void results_profiledResult_readBackWithItsCounters() {
    KernelResult result = profiled(4);
    store.insertResult(result, Instant.now());

    StoredResult page = store.results(new ResultQuery(null, null, null, 10), null, 10).getFirst();

    assertThat(JsonCodec.fromJson(page.json().getBytes(StandardCharsets.UTF_8), KernelResult.class).counters())
        .isEqualTo(FLAGGED);
  }

  /** The counters insert fails (a trigger raises): the result it belongs to must not be stored either. */
  @Test
  void insertResults_countersInsertFails_resultRolledBackToo() throws Exception {
    database.execute("CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused';"
        + " END $$");
    database.execute("CREATE TRIGGER refuse BEFORE INSERT ON result_counters FOR EACH ROW EXECUTE FUNCTION refuse()");

    assertThatThrownBy(() -> store.insertResults(List.of(profiled(1),
        Fixtures.result("s1", "r1", "a1", GPU, 2, true, Instant.now())), Instant.now()))
        .isInstanceOf(StoreException.class).hasMessageContaining("refused");

    assertThat(store.resultCount()).isZero();
  }

  @Test
  void problem_badFigureTextOrList_namesTheField() {
    assertThat(ResultCounters.problem(FLAGGED)).isNull();
    assertThat(ResultCounters.problem(new Counters(null, null, null, null, Double.NaN, null, null, null, false,
        List.of(), List.of(), null))).isEqualTo("counters.dramBytesRead: must be a finite number, not negative");
    assertThat(ResultCounters.problem(new Counters(-1.0, null, null, null, null, null, null, null, false,
        List.of(), List.of(), null))).startsWith("counters.loadSectorsPerRequest:");
    assertThat(ResultCounters.problem(new Counters(null, null, null, null, null, null, null,
        Double.POSITIVE_INFINITY, false, List.of(), List.of(), null))).startsWith("counters.modelDramBytesWritten:");
    assertThat(ResultCounters.problem(new Counters(null, null, null, null, null, null, null, null, false,
        List.of("a\u0000b"), List.of(), null))).isEqualTo("counters.flags: must not contain NUL characters");
    assertThat(ResultCounters.problem(new Counters(null, null, null, null, null, null, null, null, false,
        List.of(), Collections.nCopies(101, "k"), null))).isEqualTo("counters.kernels: at most 100, got 101");
    assertThat(ResultCounters.problem(new Counters(null, null, null, null, null, null, null, null, false,
        List.of(), List.of(), "m".repeat(10_001)))).startsWith("counters.method: at most 10000 characters");
  }

}
