package io.busload.analysis.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class HodgesLehmannTest {

  @Test
  void shift_candidateTenAbove_estimatesTenWithAnIntervalAroundIt() {
    double[] baseline = {1, 2, 3, 4, 5, 6, 7, 8};
    double[] candidate = {11.2, 12.1, 13.3, 14.0, 15.4, 16.2, 17.1, 18.3};
    Shift shift = HodgesLehmann.shift(baseline, candidate, 0.95);
    assertThat(shift.estimate()).isCloseTo(10.2, within(0.3));
    assertThat(shift.lower()).isLessThan(shift.estimate()).isGreaterThan(6);
    assertThat(shift.upper()).isGreaterThan(shift.estimate()).isLessThan(14);
    assertThat(shift.excludesZero()).isTrue();
    assertThat(shift.pValue()).isLessThan(0.001);
  }

  @Test
  void shift_intervalEnds_areWhereTheTestStartsToReject() {
    double[] baseline = {10.1, 9.8, 10.3, 10.0, 9.9, 10.2, 10.05, 9.95, 10.15, 10.4};
    double[] candidate = {10.6, 10.4, 10.9, 10.5, 10.7, 10.55, 10.8, 10.45, 10.65, 10.75};
    Shift shift = HodgesLehmann.shift(baseline, candidate, 0.95);
    var test = org.apache.commons.statistics.inference.MannWhitneyUTest.withDefaults();
    // Just inside each end the shift is accepted; just outside, rejected at 5%.
    double eps = 1e-9;
    assertThat(test.withMu(shift.lower() + eps).test(candidate, baseline).getPValue()).isGreaterThanOrEqualTo(0.05);
    assertThat(test.withMu(shift.lower() - eps).test(candidate, baseline).getPValue()).isLessThan(0.05);
    assertThat(test.withMu(shift.upper() - eps).test(candidate, baseline).getPValue()).isGreaterThanOrEqualTo(0.05);
    assertThat(test.withMu(shift.upper() + eps).test(candidate, baseline).getPValue()).isLessThan(0.05);
  }

  @Test
  void shift_sameDistribution_intervalHoldsZeroMostOfTheTime() {
    SplittableRandom random = new SplittableRandom(7);
    int holdsZero = 0;
    for (int trial = 0; trial < 400; trial++) {
      double[] a = new double[12];
      double[] b = new double[12];
      for (int i = 0; i < 12; i++) {
        a[i] = random.nextDouble();
        b[i] = random.nextDouble();
      }
      Shift shift = HodgesLehmann.shift(a, b, 0.95);
      if (!shift.excludesZero()) {
        holdsZero++;
      }
      // The interval and the test agree.
      assertThat(shift.excludesZero()).isEqualTo(shift.pValue() < 0.05);
    }
    assertThat(holdsZero / 400.0).isBetween(0.92, 0.99);
  }

  @Test
  void shift_noValues_refused() {
    assertThatThrownBy(() -> HodgesLehmann.shift(new double[0], new double[] {1}, 0.95))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("both sides");
  }
}
