package io.busload.analysis.changepoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class RobustZScoreTest {
  private static final double[] HISTORY = {100, 101, 99, 100.5, 99.5, 100, 100.2, 99.8};

  @Test
  void check_valueWithinBand_noAlarm() {
    assertThat(RobustZScore.check(100.7, HISTORY)).isEmpty();
  }

  @Test
  void check_valueFarBelow_alarmWithMedianAndZ() {
    RobustZScore.Alarm alarm = RobustZScore.check(90, HISTORY).orElseThrow();
    assertThat(alarm.median()).isEqualTo(100);
    assertThat(alarm.relativeShift()).isCloseTo(-0.10, within(1e-9));
    assertThat(alarm.z()).isLessThan(-3.5);
    assertThat(alarm.count()).isEqualTo(8);
  }

  @Test
  void check_identicalHistory_onePercentFloorHolds() {
    double[] flat = {100, 100, 100, 100, 100};
    assertThat(RobustZScore.check(100.9, flat)).isEmpty();
    assertThat(RobustZScore.check(98.9, flat)).get().extracting(RobustZScore.Alarm::z).isEqualTo(-Double.MAX_VALUE);
  }

  @Test
  void check_historyTooShort_noAlarm() {
    assertThat(RobustZScore.check(1, new double[] {100, 100, 100, 100})).isEmpty();
  }

  @Test
  void check_longHistory_onlyTheNewestThirtyCount() {
    double[] history = new double[40];
    java.util.Arrays.fill(history, 0, 30, 100);
    java.util.Arrays.fill(history, 30, 40, 50);
    assertThat(RobustZScore.check(60, history)).get().extracting(RobustZScore.Alarm::count).isEqualTo(30);
  }
}
