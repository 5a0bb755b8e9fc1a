package io.busload.coordinator.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.coordinator.Fixtures;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.Energy;
import io.busload.protocol.KernelResult;
import java.time.Duration;
import java.time.Instant;
import java.time.YearMonth;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The sample retention on a real PostgreSQL: whole months of raw samples dropped, every summary kept. */
class SampleRetentionTest {
  private static final DeviceInfo GPU = Fixtures.gpu("h1", 0);
  private static final Instant NOW = Instant.parse("2026-11-27T12:00:00Z");
  private static final Duration NINETY_DAYS = Duration.ofDays(90);

  @RegisterExtension final OpenDatabase database = new OpenDatabase();
  private final ResultStore store = new ResultStore(database.db());
  private final SampleRetention retention = new SampleRetention(database.db());
  private final VerdictStore verdicts = new VerdictStore(database.db());

  private KernelResult stored(Instant at) {
    KernelResult r = Fixtures.result("s-" + at, "r-" + at, "a1", GPU, 4, true, at)
        .withEnergy(new Energy(12.5, 350.0, 80.0, 0.0357, 100, 3));
    assertThat(store.insertResult(r, NOW)).isTrue();
    return r;
  }

  @Test
  void ageOut_monthsOlderThanRetention_dropsOnlyTheirSamplesAndKeepsEverySummary() throws Exception {
    KernelResult june = stored(Instant.parse("2026-06-10T03:00:00Z"));
    KernelResult july = stored(Instant.parse("2026-07-31T23:59:59Z"));
    // August ends on 1 September, less than 90 days before NOW: its samples stay although the 5th is 114 days ago.
    KernelResult august = stored(Instant.parse("2026-08-05T03:00:00Z"));
    KernelResult tonight = stored(Instant.parse("2026-11-27T03:00:00Z"));

    SampleRetention.Dropped dropped = retention.ageOut(NOW, NINETY_DAYS);

    assertThat(dropped.months()).containsExactly(YearMonth.of(2026, 6), YearMonth.of(2026, 7));
    assertThat(dropped.results()).isEqualTo(2);
    assertThat(dropped.bytes()).isPositive();
    assertThat(dropped.droppedBefore()).isEqualTo(Instant.parse("2026-08-01T00:00:00Z"));
    assertThat(retention.droppedBefore()).contains(Instant.parse("2026-08-01T00:00:00Z"));
    assertThat(database.count("SELECT count(*) FROM pg_inherits WHERE inhparent = 'result_samples'::regclass"))
        .isEqualTo(2);
    assertThat(store.samples(june.id())).isEmpty();
    assertThat(store.samples(july.id())).isEmpty();
    assertThat(store.samples(august.id())).isEqualTo(august.samples());
    assertThat(store.samples(tonight.id())).isEqualTo(tonight.samples());
    // The summary of every result is where it was: medians, spreads, bandwidth, clocks' columns, energy.
    assertThat(store.resultCount()).isEqualTo(4);
    for (KernelResult r : List.of(june, july)) {
      String where = " FROM results WHERE id = '" + r.id() + "'";
      assertThat(Double.parseDouble(database.text("SELECT median_seconds" + where))).isEqualTo(r.medianSeconds());
      assertThat(Double.parseDouble(database.text("SELECT relative_spread" + where))).isEqualTo(r.relativeSpread());
      assertThat(Double.parseDouble(database.text("SELECT bandwidth" + where))).isEqualTo(r.bandwidth());
      assertThat(Double.parseDouble(database.text("SELECT energy_joules" + where))).isEqualTo(12.5);
    }
    // What readers serve: the whole record, with no samples where they aged out.
    KernelResult served = verdicts.sweepResults(june.sweepId()).getFirst();
    assertThat(served.samples()).isEmpty();
    assertThat(served.medianSeconds()).isEqualTo(june.medianSeconds());
    assertThat(served.energy()).isEqualTo(june.energy());
    assertThat(verdicts.sweepResults(tonight.sweepId()).getFirst().samples()).isEqualTo(tonight.samples());
    // The change detectors read the stored summaries: the series still holds every point, with its bandwidth.
    List<VerdictStore.Point> series = verdicts.series(GPU.id(), june.kernel(), Params.text(june.params()), null,
        NOW, 100);
    assertThat(series).extracting(VerdictStore.Point::resultId)
        .containsExactly(tonight.id(), august.id(), july.id(), june.id());
    assertThat(series).allSatisfy(p -> assertThat(p.bandwidth()).isEqualTo(june.bandwidth()));
    assertThat(series.get(3).samples()).isEmpty();
    assertThat(series.get(0).samples()).isEqualTo(tonight.samples());
  }

  @Test
  void storeIncoming_redeliveryOfAResultWhoseSamplesAgedOut_noConflictWhileAnotherChangeStillIsOne() {
    KernelResult june = stored(Instant.parse("2026-06-10T03:00:00Z"));
    retention.ageOut(NOW, NINETY_DAYS);

    ResultStore.Outcome again = store.storeIncoming(List.of(new ResultStore.Incoming(june, null)), NOW);
    ResultStore.Outcome changed = store.storeIncoming(
        List.of(new ResultStore.Incoming(june.withMethod("another method"), null)), NOW);

    assertThat(again.fresh()).isEmpty();
    assertThat(again.conflicts()).as("the same record, its samples no longer stored to compare").isEmpty();
    assertThat(changed.conflicts()).containsEntry(0, "method differs");
  }

  @Test
  void ageOut_twice_secondRunDropsNothingAndKeepsTheBoundary() {
    stored(Instant.parse("2026-05-10T03:00:00Z"));
    retention.ageOut(NOW, NINETY_DAYS);

    SampleRetention.Dropped again = retention.ageOut(NOW, NINETY_DAYS);

    assertThat(again.months()).isEmpty();
    assertThat(again.results()).isZero();
    assertThat(again.droppedBefore()).isEqualTo(Instant.parse("2026-06-01T00:00:00Z"));
  }

  @Test
  void insert_lateResultOfAnAgedMonth_storesItsSummaryWithoutBringingTheMonthsSamplesBack() throws Exception {
    stored(Instant.parse("2026-05-10T03:00:00Z"));
    retention.ageOut(NOW, NINETY_DAYS);

    KernelResult late = stored(Instant.parse("2026-05-20T03:00:00Z"));

    assertThat(store.samples(late.id())).isEmpty();
    assertThat(database.count("SELECT count(*) FROM results WHERE id = '" + late.id() + "'")).isEqualTo(1);
    assertThat(database.count("SELECT count(*) FROM pg_class WHERE relname = 'result_samples_2026_05'")).isZero();
  }

  @Test
  void ageOut_nothingOldEnough_dropsNothingAndSaysNoneWereDropped() {
    KernelResult recent = stored(Instant.parse("2026-11-01T03:00:00Z"));

    SampleRetention.Dropped dropped = retention.ageOut(NOW, NINETY_DAYS);

    assertThat(dropped.months()).isEmpty();
    assertThat(dropped.droppedBefore()).isNull();
    assertThat(retention.droppedBefore()).isEmpty();
    assertThat(store.samples(recent.id())).isEqualTo(recent.samples());
  }
}
