package io.busload.dashboard.coordinator;

import java.time.Instant;
import java.util.List;

/** One agent as {@code GET /api/agents} describes it. */
public record Agent(
    String agentId, String host, String agentVersion, boolean online, Instant lastSeen, List<AgentDevice> devices) {

  public Agent {
    devices = devices == null ? List.of() : List.copyOf(devices);
  }
}
