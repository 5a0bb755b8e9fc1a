package io.busload.coordinator.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.coordinator.Fixtures;
import io.busload.protocol.CacheResidency;
import io.busload.protocol.Clocks;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.KernelResult;
import io.busload.protocol.ResultStatus;
import io.busload.protocol.Sampling;
import io.busload.protocol.StopReason;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A result's typed clocks as the reads that compare results get them back from a real PostgreSQL: the series, the
 * regression history and the cohort figures; null (read the sentence) only for a result stored without them.
 */
class StoredClocksTest {
  private static final DeviceInfo GPU = Fixtures.gpu("sc", 0);
  private static final Instant T = Instant.parse("2026-11-20T00:00:00Z");
  private static final String PROSE = "GPU before: sm 1410 MHz, mem 2619 MHz; after: sm 1410 MHz, mem 2619 MHz";
  private static final Clocks READ = new Clocks(Clocks.Reading.READ, "NVML 12.580.82", 1755, 1980, 2600, 2619, 0x4L,
      2, false);
  /** READ as its columns give it back: every figure a comparison reads; the note stays in result_json. */
  private static final Clocks READ_BACK = new Clocks(Clocks.Reading.READ, null, 1755, 1980, 2600, 2619, 0x4L, 2,
      false);
  private static final Clocks NOT_READ = Clocks.notRead("no libnvidia-ml.so.1");

  @RegisterExtension final OpenDatabase database = new OpenDatabase();
  private final ResultStore store = new ResultStore(database.db());
  private final VerdictStore verdicts = new VerdictStore(database.db());
  private final ComparisonStore analysis = new ComparisonStore(database.db());

  private static KernelResult result(Instant at, Clocks clocks) {
    KernelResult r = Fixtures.result("s", "r", "a1", GPU, 4, true, at).withMethod(PROSE);
    return clocks == null ? r : r.withSampling(ResultStatus.MEASURED, new Sampling(10, 0, 0, StopReason.SPREAD_SETTLED,
        clocks, CacheResidency.of(8L << 20, GPU.l2Bytes(), false)));
  }

  /** Oldest to newest: one stored without typed clocks, one whose clocks were read, one whose clocks were not. */
  private void store() {
    store.insertResults(List.of(result(T, null), result(T.plusSeconds(60), READ),
        result(T.plusSeconds(120), NOT_READ)), Instant.now());
  }

  @Test
  void series_threeKindsOfResult_typedClocksBackNewestFirstNullWhereNoneStored() {
    store();

    List<VerdictStore.Point> series = verdicts.series(GPU.id(), "stride_copy_fp32", "elements=1024;stride=4", null,
        T.plusSeconds(3600), 10);

    assertThat(series).extracting(VerdictStore.Point::clocks)
        .containsExactly(Clocks.notRead(null), READ_BACK, null);
    assertThat(series).extracting(VerdictStore.Point::method).containsOnly(PROSE);
  }

  @Test
  void history_threeKindsOfResult_typedClocksBackNewestFirstNullWhereNoneStored() {
    store();

    List<ComparisonStore.HistoryPoint> history = analysis.history(GPU.id(), "stride_copy_fp32", "elements=1024;stride=4",
        T.plusSeconds(3600), 10);

    assertThat(history).extracting(ComparisonStore.HistoryPoint::clocks)
        .containsExactly(Clocks.notRead(null), READ_BACK, null);
  }

  @Test
  void figures_threeKindsOfResult_clocksInTheOrderOfTheBandwidths() {
    store();

    List<VerdictStore.Figure> figures = verdicts.figures(T.minusSeconds(1), 5);

    assertThat(figures).hasSize(1);
    assertThat(figures.getFirst().bandwidths()).hasSize(3);
    assertThat(figures.getFirst().clocks()).containsExactly(Clocks.notRead(null), READ_BACK, null);
    assertThat(figures.getFirst().methods()).containsOnly(PROSE);
  }

  /** A result stored before V9 has no memory clock columns: its clocks come out of its stored result, note and all. */
  @Test
  void seriesAndFigures_readResultStoredBeforeV9_clocksUnpackedFromItsResult() {
    store();
    int cleared = database.db().inTransaction(c -> {
      try (var s = c.createStatement()) {
        return s.executeUpdate("UPDATE results SET mem_clock_min_mhz = NULL, mem_clock_max_mhz = NULL");
      }
    });
    assertThat(cleared).isEqualTo(3);

    assertThat(verdicts.series(GPU.id(), "stride_copy_fp32", "elements=1024;stride=4", null, T.plusSeconds(3600), 10))
        .extracting(VerdictStore.Point::clocks).containsExactly(Clocks.notRead(null), READ, null);
    assertThat(verdicts.figures(T.minusSeconds(1), 5).getFirst().clocks())
        .containsExactly(Clocks.notRead(null), READ, null);
  }
}
