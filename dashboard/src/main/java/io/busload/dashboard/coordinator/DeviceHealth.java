package io.busload.dashboard.coordinator;

import java.time.Instant;
import java.util.List;

/**
 * A device's health verdict ({@code GET /api/devices/health}): HEALTHY, DEGRADED or FAILED, each finding with its
 * sentence, and what could not be read.
 */
public record DeviceHealth(String deviceId, String model, String state, List<Reason> reasons, List<String> notRead,
    String runId, Instant judgedAt, Instant since) {

  /** One finding: its kind, the state it calls for, and the sentence with its numbers. */
  public record Reason(String kind, String state, double value, String sentence) {}

  public DeviceHealth {
    reasons = reasons == null ? List.of() : List.copyOf(reasons);
    notRead = notRead == null ? List.of() : List.copyOf(notRead);
  }

  /** The verdict as the Fleet view shows it: the state, then its reasons. */
  public String text() {
    return reasons.isEmpty() ? state
        : state + ": " + String.join("; ", reasons.stream().map(Reason::sentence).toList());
  }
}
