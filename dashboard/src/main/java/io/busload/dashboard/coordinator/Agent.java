package io.busload.dashboard.coordinator;

import java.time.Instant;
import java.util.List;

/** One agent as {@code GET /api/agents} describes it, with the host labels its hello declared. */
public record Agent(String agentId, String host, String agentVersion, boolean online, Instant lastSeen,
    List<AgentDevice> devices, List<String> labels) {

  public Agent {
    devices = devices == null ? List.of() : List.copyOf(devices);
    labels = labels == null ? List.of() : List.copyOf(labels); // absent from a coordinator that sends no labels
  }

  /** An agent without labels. */
  public Agent(String agentId, String host, String agentVersion, boolean online, Instant lastSeen,
      List<AgentDevice> devices) {
    this(agentId, host, agentVersion, online, lastSeen, devices, List.of());
  }
}
