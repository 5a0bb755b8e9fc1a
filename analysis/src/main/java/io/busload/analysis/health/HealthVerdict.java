package io.busload.analysis.health;

import java.util.List;

/**
 * A device's health: the worst state any reason calls for (HEALTHY with no reasons), and what could not be read, so
 * that a HEALTHY built on little is seen to be.
 *
 * @param state HEALTHY, DEGRADED or FAILED
 * @param reasons every finding, worst first
 * @param notRead the inputs that were not read ("ECC errors", "XID events", ...), in words
 */
public record HealthVerdict(HealthState state, List<HealthReason> reasons, List<String> notRead) {
  public HealthVerdict {
    reasons = List.copyOf(reasons);
    notRead = List.copyOf(notRead);
    HealthState worst = reasons.stream().map(HealthReason::state).reduce(HealthState.HEALTHY, HealthState::worst);
    if (state != worst) {
      throw new IllegalArgumentException("health verdict: state " + state + " but the worst reason calls for " + worst);
    }
  }

  /** The verdict in one line: the state, its reasons' sentences, and what was not read. */
  public String sentence() {
    StringBuilder text = new StringBuilder(state.name());
    if (!reasons.isEmpty()) {
      text.append(": ").append(String.join("; ", reasons.stream().map(HealthReason::sentence).toList()));
    }
    if (!notRead.isEmpty()) {
      text.append(" (not read: ").append(String.join(", ", notRead)).append(')');
    }
    return text.toString();
  }
}
