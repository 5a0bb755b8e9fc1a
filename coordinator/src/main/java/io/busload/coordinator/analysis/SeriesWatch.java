package io.busload.coordinator.analysis;

import io.busload.analysis.changepoint.ChangePoint;
import io.busload.analysis.changepoint.OnlineDetector;
import io.busload.analysis.verdict.AbTest;
import io.busload.analysis.verdict.Comparison;
import io.busload.analysis.verdict.Setting;
import io.busload.analysis.verdict.Side;
import io.busload.analysis.verdict.Thresholds;
import io.busload.coordinator.store.ComparisonStore.HistoryPoint;
import io.busload.coordinator.store.ComparisonStore;
import io.busload.coordinator.store.VerdictStore.Point;
import io.busload.coordinator.store.VerdictStore.StoredChangePoint;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * One series as {@link RegressionWatch} follows it: its newest points since the baseline started, the z-score's
 * view of them, and an E-Divisive detector fed each new one.
 */
final class SeriesWatch {
  private final OnlineDetector detector;
  private final int keep;
  /** Newest last; {@code points.get(i)} is the series' point number {@code dropped + i} since the cache loaded it. */
  private final List<Point> points = new ArrayList<>();
  private long dropped;
  /** Series number of the first point of the current level (a change found moves it). */
  private long levelFrom;

  /** @param history the series since its baseline started, oldest first: fed silently (old changes are history's) */
  SeriesWatch(OnlineDetector.Settings settings, List<Point> history) {
    this.detector = new OnlineDetector(settings);
    this.keep = Math.max(RegressionCheck.HISTORY, settings.window());
    for (Point p : history) {
      remember(p);
      detector.add(p.bandwidth()).ifPresent(change -> levelFrom = change.index());
    }
  }

  /**
   * The z-score's history: the points of the current level only, so its baseline restarts at a change point as it
   * does at an accepted mark (until 5 points of the new level exist, the z-score stays silent).
   */
  List<HistoryPoint> zHistory() {
    int from = (int) Math.max(0, levelFrom - dropped);
    return RegressionWatch.zHistory(points.subList(from, points.size()));
  }

  /** The new point; the change it makes certain, with the points before and after it, if any. */
  Optional<Found> add(Point point) {
    remember(point);
    Optional<ChangePoint> change = detector.add(point.bandwidth());
    if (change.isEmpty()) {
      return Optional.empty();
    }
    long at = change.get().index();
    int first = (int) Math.max(0, Math.max(levelFrom, at - keep) - dropped);
    int split = (int) Math.max(0, at - dropped);
    levelFrom = at;
    return Optional.of(new Found(change.get(), List.copyOf(points.subList(first, split)),
        List.copyOf(points.subList(split, points.size()))));
  }

  private void remember(Point point) {
    points.add(point);
    if (points.size() > keep) {
      points.removeFirst();
      dropped++;
    }
  }

  /** A change point and the series' points on each side of it, oldest first. */
  record Found(ChangePoint change, List<Point> before, List<Point> after) {}

  /** The row to store: the change, where it starts and what announced it, and the A/B verdict of after against before. */
  static StoredChangePoint stored(KernelResult announcing, String params, Found found, Instant now) {
    Point first = found.after().getFirst();
    Comparison verdict = AbTest.compare(side("before", found.before()), side("after", found.after()),
        Thresholds.defaults());
    ChangePoint c = found.change();
    return new StoredChangePoint(UUID.randomUUID(), announcing.device().id(), announcing.device().name(),
        announcing.kernel(), params, RegressionWatch.kind(c), first.resultId(), announcing.id(), c.before(), c.after(),
        c.relativeShift(), c.sigma(), c.pValue(), new String(JsonCodec.toJson(verdict), StandardCharsets.UTF_8),
        first.measuredAt(), now);
  }

  /** The runs of one side as the A/B verdict takes them: one bandwidth per run, the setting of the run nearest the change. */
  private static Side side(String label, List<Point> points) {
    if (points.isEmpty()) {
      return Side.unusable(label, null, "has no runs in the window");
    }
    Point nearest = label.equals("before") ? points.getLast() : points.getFirst();
    return Side.of(label, points.stream().map(Point::bandwidth).toList(), setting(nearest));
  }

  static Setting setting(Point p) {
    return new Setting(p.model(), p.fingerprint(), p.driverVersion(), p.agentVersion(), p.fatbinHash(),
        ClockConditions.of(p.clocks(), p.method()));
  }

  /** A stored result as a point of its series. */
  static Point point(KernelResult r) {
    return new Point(r.id(), r.measuredAt(), r.bandwidth(), r.samples(), r.bytes(), r.device().name(),
        r.device().fingerprint(), r.device().driverVersion(), r.agentVersion(), r.fatbinHash(), r.method(),
        ComparisonStore.origin(r.origin()), r.sampling() == null ? null : r.sampling().clocks());
  }
}
