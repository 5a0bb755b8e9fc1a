package io.busload.analysis.health;

/** A device's health verdict, ordered from best to worst. */
public enum HealthState {
  /** Nothing read points at the hardware. */
  HEALTHY,
  /** Usable, but something read calls for a look: errors corrected, repairs pending, links retrying, slow. */
  DEGRADED,
  /** An error the hardware did not correct, a repair that failed, or an XID error: not to be trusted with work. */
  FAILED;

  /** The worse of this and {@code other}. */
  public HealthState worst(HealthState other) {
    return compareTo(other) >= 0 ? this : other;
  }
}
