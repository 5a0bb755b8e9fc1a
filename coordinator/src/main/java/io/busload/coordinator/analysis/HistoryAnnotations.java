package io.busload.coordinator.analysis;

import io.busload.analysis.changepoint.ChangePoint;
import io.busload.analysis.changepoint.EDivisive;
import io.busload.coordinator.store.ComparisonStore;
import io.busload.coordinator.store.VerdictStore;
import io.busload.coordinator.store.VerdictStore.AcceptedChange;
import io.busload.coordinator.store.VerdictStore.Point;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * What the History view marks on one kernel case's chart, per device: the level shifts E-Divisive finds over the
 * device's whole history (offline, unlike the change points found on arrival), the z-score's regressions and
 * improvements recorded on arrival, and the operators' accepted marks, at which the baseline restarts.
 */
public final class HistoryAnnotations {
  /** Points of one device's history the whole-history change points are found in (the newest). */
  static final int ANNOTATED_POINTS = 400;
  /** Later than any result: "before this" means all of them (PostgreSQL holds it; Instant.MAX it does not). */
  private static final Instant FAR_FUTURE = Instant.parse("9999-12-31T00:00:00Z");

  private final VerdictStore verdicts;
  private final ComparisonStore analysis;
  private final EDivisive detector = new EDivisive(EDivisive.Settings.defaults());

  public HistoryAnnotations(VerdictStore verdicts, ComparisonStore analysis) {
    this.verdicts = verdicts;
    this.analysis = analysis;
  }

  /** A level shift over a device's whole history (E-Divisive offline, the baseline restarting at accepted marks). */
  public record HistoryChange(UUID resultId, Instant measuredAt, double before, double after, double relativeShift,
      double pValue) {}

  /** A z-score regression or improvement recorded on arrival. */
  public record HistoryAlarm(UUID resultId, Instant measuredAt, String kind, double changeFraction) {}

  /** One device's marks; {@code points} is how many of its results the change points were found in. */
  public record DeviceAnnotations(String deviceId, int points, List<HistoryChange> changePoints,
      List<HistoryAlarm> regressions, List<AcceptedChange> accepted) {}

  /**
   * The marks of {@code kernel} with {@code params} on {@code device}, or on every device that measured the case
   * when {@code device} is null. Blocking: store reads and E-Divisive over each device's history.
   */
  public List<DeviceAnnotations> of(String kernel, String params, String device) {
    List<String> devices = device == null ? verdicts.devicesOf(kernel, params) : List.of(device);
    List<DeviceAnnotations> out = new ArrayList<>();
    for (String d : devices) {
      List<Point> points = verdicts.series(d, kernel, params, null, FAR_FUTURE, ANNOTATED_POINTS).reversed();
      List<AcceptedChange> marks = verdicts.accepted(d, kernel, params, 1000);
      List<HistoryChange> changes = changePoints(detector, points, marks.stream().map(AcceptedChange::from).toList());
      List<HistoryAlarm> alarms = analysis.changes(d, kernel, null, 10_000).stream()
          .filter(ch -> ch.params().equals(params))
          .map(ch -> new HistoryAlarm(ch.resultId(), ch.measuredAt(), ch.kind().name(), ch.changeFraction()))
          .toList();
      out.add(new DeviceAnnotations(d, points.size(), changes, alarms, marks));
    }
    return out;
  }

  /**
   * The change points of a history ({@code points} oldest first), each stretch between accepted marks ({@code cuts},
   * in any order) searched on its own: the baseline restarts at a mark, so a step the operator accepted is no change
   * point.
   */
  static List<HistoryChange> changePoints(EDivisive detector, List<Point> points, List<Instant> cuts) {
    List<Instant> sorted = cuts.stream().sorted().toList();
    List<HistoryChange> changes = new ArrayList<>();
    int from = 0;
    for (int cut = 0; cut <= sorted.size(); cut++) {
      int to = from;
      while (to < points.size() && (cut == sorted.size() || points.get(to).measuredAt().isBefore(sorted.get(cut)))) {
        to++;
      }
      List<Point> stretch = points.subList(from, to);
      double[] values = stretch.stream().mapToDouble(Point::bandwidth).toArray();
      for (ChangePoint c : detector.detect(values)) {
        Point first = stretch.get((int) c.index());
        changes.add(new HistoryChange(first.resultId(), first.measuredAt(), c.before(), c.after(), c.relativeShift(),
            c.pValue()));
      }
      from = to;
    }
    return changes;
  }
}
