package io.busload.dashboard.coordinator;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * What the History chart marks on one device's line ({@code GET /api/history/annotations}): the change points of its
 * whole history, the z-score's regressions and improvements, and the changes operators accepted.
 */
public record Annotations(String deviceId, int points, List<ChangePoint> changePoints, List<Alarm> regressions,
    List<Accepted> accepted) {

  public Annotations {
    changePoints = changePoints == null ? List.of() : List.copyOf(changePoints);
    regressions = regressions == null ? List.of() : List.copyOf(regressions);
    accepted = accepted == null ? List.of() : List.copyOf(accepted);
  }

  /** A level shift from {@code measuredAt} on, in bytes per second. */
  public record ChangePoint(UUID resultId, Instant measuredAt, double before, double after, double relativeShift,
      double pValue) {}

  /** A z-score alarm recorded on arrival. */
  public record Alarm(UUID resultId, Instant measuredAt, String kind, double changeFraction) {}

  /** An operator's mark: the baseline restarts at {@code from}. */
  public record Accepted(UUID id, String deviceId, String kernel, String params, Instant from, String acceptedBy,
      String reason) {}
}
