package io.busload.analysis.changepoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.busload.analysis.evaluation.Corpus;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class EDivisiveTest {
  private final EDivisive detector = new EDivisive(EDivisive.Settings.defaults());

  private static double[] noise(long seed, int n, double level, double sigma) {
    SplittableRandom random = new SplittableRandom(seed);
    double[] x = new double[n];
    for (int i = 0; i < n; i++) {
      x[i] = level * (1 + sigma * Corpus.gaussian(random));
    }
    return x;
  }

  /** {@code x} with the values at {@code [from, to)} scaled by {@code factor}: a level shift for as long. */
  private static double[] shifted(double[] x, int from, int to, double factor) {
    for (int i = from; i < to; i++) {
      x[i] *= factor;
    }
    return x;
  }

  @Test
  void detect_fivePercentDrop_foundAtItsIndexWithItsSize() {
    List<ChangePoint> found = detector.detect(shifted(noise(1, 80, 100, 0.01), 50, 80, 0.95));
    assertThat(found).hasSize(1);
    assertThat(found.getFirst().index()).isEqualTo(50);
    assertThat(found.getFirst().relativeShift()).isCloseTo(-0.05, within(0.01));
    assertThat(found.getFirst().pValue()).isLessThanOrEqualTo(0.001);
  }

  @Test
  void detect_upThenDown_findsBoth() {
    List<ChangePoint> found = detector.detect(shifted(noise(2, 120, 100, 0.005), 40, 80, 1.03));
    assertThat(found).extracting(ChangePoint::index).containsExactly(40L, 80L);
    assertThat(found.get(0).relativeShift()).isPositive();
    assertThat(found.get(1).relativeShift()).isNegative();
  }

  @Test
  void detect_stationaryNoise_findsNothing() {
    for (long seed = 0; seed < 20; seed++) {
      assertThat(detector.detect(noise(seed, 150, 100, 0.02))).as("seed %d", seed).isEmpty();
    }
  }

  @Test
  void detect_singleOutlier_isNotALevelShift() {
    double[] x = noise(3, 100, 100, 0.005);
    x[60] = 70;
    assertThat(detector.detect(x)).isEmpty();
  }

  @Test
  void detect_sameSeries_sameAnswer() {
    double[] x = shifted(noise(4, 90, 100, 0.01), 45, 90, 0.98);
    assertThat(detector.detect(x)).isEqualTo(detector.detect(x.clone()));
  }

  @Test
  void detect_tooShort_findsNothing() {
    assertThat(detector.detect(new double[] {1, 1, 1, 5, 5, 5})).isEmpty();
  }

  @Test
  void bestSplit_cleanStep_isTheStep() {
    double[] x = {1, 1.1, 0.9, 1, 1.05, 2, 2.1, 1.9, 2, 2.05};
    assertThat(EDivisive.bestSplit(x, 2, 2)).get().extracting(EDivisive.Split::index).isEqualTo(5);
  }

  @Test
  void settings_unreachableSignificance_refused() {
    assertThatThrownBy(() -> new EDivisive.Settings(6, 99, 0.001, 2, 0))
        .hasMessageContaining("cannot be reached with 99 permutations");
  }
}
