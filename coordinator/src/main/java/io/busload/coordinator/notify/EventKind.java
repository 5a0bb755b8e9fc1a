package io.busload.coordinator.notify;

/** What a notice is about; a target's filter names the kinds it wants. */
public enum EventKind {
  /** A level shift in one series that E-Divisive confirmed (one per change, not per point). */
  CHANGE_POINT,
  /** A sweep whose runs all finished and at least one did not succeed. */
  SWEEP_FAILED,
  /** An agent not heard from for longer than the settings' agent-offline time. */
  AGENT_OFFLINE,
  /** A device whose figure for a kernel case lies outside the band of its cohort (same model and driver). */
  COHORT_FLAG,
  /** A device back: its agent heard from again after an offline notice, or back within its cohort. */
  DEVICE_RECOVERED,
  /** A certificate of the fleet (the coordinator's, a CA's, or an agent's) within the warning's days of expiry. */
  CERTIFICATE_EXPIRY,
  /** A device's health verdict turned DEGRADED or FAILED, or from one to the other (one notice per change). */
  DEVICE_HEALTH_CHANGED,
  /** A device's health verdict back to HEALTHY after DEGRADED or FAILED. */
  DEVICE_HEALTH_RECOVERED
}
