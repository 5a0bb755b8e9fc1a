package io.busload.coordinator.store;

import io.busload.protocol.DeviceInfo;
import java.time.Instant;
import java.util.List;

/** An agent as the store remembers it, so that a restarted coordinator still knows the fleet's devices. */
public record KnownAgent(
    String agentId, String host, String agentVersion, String fatbinHash, Instant lastSeen, List<DeviceInfo> devices) {

  public KnownAgent {
    devices = List.copyOf(devices);
  }
}
