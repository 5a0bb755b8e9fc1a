package io.busload.coordinator.fleet;

import java.time.Instant;
import java.util.List;

/** One agent as {@code GET /api/agents} shows it (docs/contract.md, REST). */
public record AgentView(
    String agentId, String host, String agentVersion, boolean online, Instant lastSeen, List<DeviceView> devices) {

  public AgentView {
    devices = List.copyOf(devices);
  }
}
