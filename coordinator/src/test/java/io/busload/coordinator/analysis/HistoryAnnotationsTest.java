package io.busload.coordinator.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.analysis.changepoint.EDivisive;
import io.busload.coordinator.analysis.HistoryAnnotations.HistoryChange;
import io.busload.coordinator.store.VerdictStore.Point;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The History view's whole-history change points, each stretch between accepted marks searched on its own. */
class HistoryAnnotationsTest {
  private static final Instant T = Instant.parse("2026-11-01T00:00:00Z");
  private final EDivisive detector = new EDivisive(EDivisive.Settings.defaults());
  private final SplittableRandom random = new SplittableRandom(7);

  /** Hourly points from T, oldest first: 2.0e12 B/s (0.2% noise) until {@code stepAt}, 1.8e12 B/s from there. */
  private List<Point> history(int n, int stepAt) {
    List<Point> points = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      double level = (i < stepAt ? 2.0e12 : 1.8e12) * (1 + 0.002 * (random.nextDouble() - 0.5));
      points.add(new Point(UUID.randomUUID(), hour(i), level, List.of(), 1L << 23, "H100", "fp", "580.82", "0.1.0",
          "fatbin", "method", null, null));
    }
    return points;
  }

  private static Instant hour(int i) {
    return T.plusSeconds(3600L * i);
  }

  @Test
  void changePoints_stepAndNoMark_foundAtTheFirstPointOfTheNewLevel() {
    List<Point> points = history(40, 25);

    List<HistoryChange> changes = HistoryAnnotations.changePoints(detector, points, List.of());

    assertThat(changes).singleElement().satisfies(c -> {
      assertThat(c.resultId()).isEqualTo(points.get(25).resultId());
      assertThat(c.measuredAt()).isEqualTo(hour(25));
      assertThat(c.relativeShift()).isBetween(-0.11, -0.09);
    });
  }

  @Test
  void changePoints_stepAtAnAcceptedMark_noneFound() {
    List<Point> points = history(40, 25);

    // The marks in no order, one of them at the step: every stretch is level, so nothing is drawn.
    List<HistoryChange> changes = HistoryAnnotations.changePoints(detector, points, List.of(hour(32), hour(25),
        hour(10)));

    assertThat(changes).isEmpty();
  }

  @Test
  void changePoints_stepInsideTheStretchAfterAMark_foundThere() {
    List<Point> points = history(60, 40);

    List<HistoryChange> changes = HistoryAnnotations.changePoints(detector, points, List.of(hour(15)));

    assertThat(changes).extracting(HistoryChange::resultId).containsExactly(points.get(40).resultId());
  }
}
