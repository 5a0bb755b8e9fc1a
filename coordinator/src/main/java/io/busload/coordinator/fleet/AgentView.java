package io.busload.coordinator.fleet;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * One agent as {@code GET /api/agents} shows it (docs/contract.md, REST), with the labels its hello declared (the
 * Fleet view groups by them; empty until the agent says hello to this coordinator).
 *
 * @param clockOffset how far the agent's clock was ahead of this coordinator's (negative: behind) when its last
 *     heartbeat arrived, in seconds on the wire; null until a heartbeat is heard
 */
public record AgentView(String agentId, String host, String agentVersion, boolean online, Instant lastSeen,
    List<DeviceView> devices, List<String> labels, Duration clockOffset) {

  public AgentView {
    devices = List.copyOf(devices);
    labels = labels == null ? List.of() : List.copyOf(labels);
  }
}
