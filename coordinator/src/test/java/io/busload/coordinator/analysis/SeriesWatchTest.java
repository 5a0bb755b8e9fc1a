package io.busload.coordinator.analysis;

import static io.busload.coordinator.analysis.ClockConditionsTest.PROSE_1410;
import static io.busload.coordinator.analysis.ClockConditionsTest.read;
import static io.busload.coordinator.analysis.ClockConditionsTest.withClocks;
import static org.assertj.core.api.Assertions.assertThat;

import io.busload.coordinator.store.ComparisonStore.HistoryPoint;
import io.busload.coordinator.store.VerdictStore.Point;
import io.busload.protocol.Clocks;
import io.busload.protocol.KernelResult;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A result's typed clocks through a followed series: its points, the A/B verdict's setting, the z-score's history. */
class SeriesWatchTest {

  @Test
  void setting_pointWithTypedClocks_conditionsFromThemNotTheSentence() {
    Point p = SeriesWatch.point(withClocks(PROSE_1410, read(1980, 1980, 2619, 0L)));

    assertThat(p.clocks().smMaxMHz()).isEqualTo(1980);
    assertThat(SeriesWatch.setting(p).conditions().smMHz()).isEqualTo(1980.0);
    assertThat(SeriesWatch.setting(p).conditions().throttling()).isFalse();
  }

  @Test
  void setting_pointWithoutTypedClocks_conditionsFromItsSentence() {
    Point p = SeriesWatch.point(withClocks(PROSE_1410, null));

    assertThat(p.clocks()).isNull();
    assertThat(SeriesWatch.setting(p).conditions().smMHz()).isEqualTo(1410.0);
    assertThat(SeriesWatch.setting(p).conditions().throttling()).isTrue();
  }

  @Test
  void zHistory_pointsWithClocks_keepThemNewestFirst() {
    Clocks older = read(1755, 1755, 2619, 0x4L);
    Clocks newer = read(1980, 1980, 2619, 0L);
    KernelResult a = withClocks("x", older);
    KernelResult b = withClocks("x", newer);

    List<HistoryPoint> history = RegressionWatch.zHistory(List.of(SeriesWatch.point(a), SeriesWatch.point(b),
        SeriesWatch.point(withClocks("x", null))));

    assertThat(history).extracting(HistoryPoint::clocks).containsExactly(null, newer, older);
  }
}
