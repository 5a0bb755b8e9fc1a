package io.busload.analysis.evaluation;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.analysis.evaluation.LabelledSeries.Kind;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScoreTest {
  private static final LabelledSeries STEP = new LabelledSeries(Kind.STEP, 0.01, 0.05, List.of(60), 0, new double[120]);

  @Test
  void onArrival_firstAlarmAfterTheChangeDetectsItLaterOnesRepeat() {
    Score score = Score.onArrival(STEP, List.of(10, 64, 65, 66, 101));
    assertThat(score.detected()).isEqualTo(1);
    assertThat(score.delays()).containsExactly(4);
    assertThat(score.repeats()).isEqualTo(2);
    // 10 is before the change; 101 is more than 40 values after it.
    assertThat(score.falseAlarms()).isEqualTo(2);
  }

  @Test
  void onArrival_driftAlarmsFromItsOnsetAreNeither() {
    LabelledSeries drift = new LabelledSeries(Kind.DRIFT, 0.01, 0.05, List.of(), 50, new double[150]);
    Score score = Score.onArrival(drift, List.of(20, 70, 90));
    assertThat(score.falseAlarms()).isEqualTo(1);
    assertThat(score.detected()).isZero();
  }

  @Test
  void located_withinThreeValuesDetects() {
    Score score = Score.located(STEP, List.of(58, 30));
    assertThat(score.detected()).isEqualTo(1);
    assertThat(score.falseAlarms()).isEqualTo(1);
    assertThat(Score.located(STEP, List.of(56)).detected()).isZero();
  }
}
