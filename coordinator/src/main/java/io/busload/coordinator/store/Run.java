package io.busload.coordinator.store;

import io.busload.protocol.RunStatus;

/** One suite on one device within a sweep, with the progress its agent last reported. */
public record Run(
    String runId, String sweepId, String deviceId, String agentId, RunStatus.State state, int completed, int total,
    String message) {

  /** A finished run frees its device; INTERRUPTED counts, else a lost run would hold the device forever. */
  public boolean finished() {
    return finished(state);
  }

  public static boolean finished(RunStatus.State state) {
    return state == RunStatus.State.DONE || state == RunStatus.State.FAILED || state == RunStatus.State.INTERRUPTED;
  }
}
