package io.busload.coordinator.notify;

/** What a notice is about; a target's filter names the kinds it wants. */
public enum EventKind {
  /** A level shift in one series that E-Divisive confirmed (one per change, not per point). */
  CHANGE_POINT,
  /** A sweep whose runs all finished and at least one did not succeed. */
  SWEEP_FAILED,
  /** An agent not heard from for longer than the settings' agent-offline time. */
  AGENT_OFFLINE,
  /** An agent heard from again after it was reported offline: its devices are back. */
  DEVICE_RECOVERED
}
