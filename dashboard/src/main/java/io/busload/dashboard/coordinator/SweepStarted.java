package io.busload.dashboard.coordinator;

import java.util.List;

/** The answer to {@code POST /api/sweeps}: the sweep's id and one run per device it was queued on. */
public record SweepStarted(String id, List<Run> runs) {

  public SweepStarted {
    runs = runs == null ? List.of() : List.copyOf(runs);
  }

  public record Run(String runId, String deviceId) {}
}
