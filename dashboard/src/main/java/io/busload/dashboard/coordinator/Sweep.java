package io.busload.dashboard.coordinator;

import java.time.Instant;
import java.util.List;

/** A sweep as {@code GET /api/sweeps} describes it. */
public record Sweep(String id, String suite, String state, Instant createdAt, int completed, int total, List<Run> runs) {

  public Sweep {
    runs = runs == null ? List.of() : List.copyOf(runs);
  }

  /** One device's share of a sweep. */
  public record Run(String runId, String deviceId, String state, int completed, int total, String message) {}
}
