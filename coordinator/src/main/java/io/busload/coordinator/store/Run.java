package io.busload.coordinator.store;

/** One suite on one device within a sweep, with the progress its agent last reported. */
public record Run(
    String runId, String sweepId, String deviceId, String agentId, RunState state, int completed, int total,
    String message) {

  /** A finished run frees its device; see {@link RunState#finished()}. */
  public boolean finished() {
    return state.finished();
  }

  /** This run moved to {@code next}, with the progress and message given. */
  Run moved(RunState next, int completed, int total, String message) {
    return new Run(runId, sweepId, deviceId, agentId, next, completed, total, message);
  }
}
