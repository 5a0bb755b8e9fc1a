package io.busload.analysis.changepoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.analysis.evaluation.Corpus;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class OnlineDetectorTest {

  private static List<long[]> feed(OnlineDetector detector, double[] series) {
    List<long[]> alarms = new ArrayList<>();
    for (int t = 0; t < series.length; t++) {
      Optional<ChangePoint> change = detector.add(series[t]);
      if (change.isPresent()) {
        alarms.add(new long[] {t, change.get().index()});
      }
    }
    return alarms;
  }

  private static double[] step(long seed, int n, int at, double sigma, double step) {
    SplittableRandom random = new SplittableRandom(seed);
    double[] x = new double[n];
    for (int i = 0; i < n; i++) {
      x[i] = 100 * (1 + (i >= at ? step : 0) + sigma * Corpus.gaussian(random));
    }
    return x;
  }

  @Test
  void add_stepOfFourSigmas_announcedOnceSoonAfterAtItsIndex() {
    OnlineDetector detector = new OnlineDetector(OnlineDetector.Settings.defaults());
    List<long[]> alarms = feed(detector, step(1, 150, 70, 0.01, -0.04));
    assertThat(alarms).hasSize(1);
    long announcedAt = alarms.getFirst()[0];
    assertThat(alarms.getFirst()[1]).isBetween(69L, 71L);
    assertThat(announcedAt - 70).isBetween(5L, 12L);
  }

  @Test
  void add_stationary_noAlarmIn2000Values() {
    OnlineDetector detector = new OnlineDetector(OnlineDetector.Settings.defaults());
    assertThat(feed(detector, step(2, 2000, 5000, 0.01, 0))).isEmpty();
  }

  @Test
  void add_afterAChange_baselineRestartsThere() {
    OnlineDetector detector = new OnlineDetector(OnlineDetector.Settings.defaults());
    feed(detector, step(3, 100, 60, 0.005, 0.05));
    assertThat(detector.held()).isLessThanOrEqualTo(40);
    assertThat(detector.count()).isEqualTo(100);
  }

  @Test
  void restartAt_acceptedChange_forgetsTheOldLevel() {
    OnlineDetector detector = new OnlineDetector(OnlineDetector.Settings.defaults());
    double[] x = step(4, 70, 60, 0.005, 0.05);
    for (int i = 0; i < 61; i++) {
      detector.add(x[i]);
    }
    detector.restartAt(60);
    assertThat(detector.held()).isEqualTo(1);
    for (int i = 61; i < 70; i++) {
      assertThat(detector.add(x[i])).isEmpty();
    }
  }
}
