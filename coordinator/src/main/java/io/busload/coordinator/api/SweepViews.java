package io.busload.coordinator.api;

import io.busload.coordinator.store.Run;
import io.busload.coordinator.store.Sweep;
import java.time.Instant;
import java.util.List;

/** The JSON shapes of sweeps on the REST API (docs/contract.md), kept apart from the store's records. */
final class SweepViews {
  private SweepViews() {}

  record SweepView(String id, String suite, Sweep.State state, Instant createdAt, int completed, int total,
      List<RunView> runs) {

    static SweepView of(Sweep sweep) {
      return new SweepView(sweep.id(), sweep.suite(), sweep.state(), sweep.createdAt(), sweep.completed(),
          sweep.total(), sweep.runs().stream().map(RunView::of).toList());
    }
  }

  record RunView(String runId, String deviceId, String state, int completed, int total, String message) {
    static RunView of(Run run) {
      return new RunView(run.runId(), run.deviceId(), run.state().name(), run.completed(), run.total(), run.message());
    }
  }

  /** The answer to {@code POST /api/sweeps}. */
  record Created(String id, List<RunRef> runs) {
    static Created of(Sweep sweep) {
      return new Created(sweep.id(), sweep.runs().stream().map(r -> new RunRef(r.runId(), r.deviceId())).toList());
    }
  }

  record RunRef(String runId, String deviceId) {}
}
