package io.busload.protocol;

import java.time.Instant;
import java.util.List;

/** An agent introducing itself and its devices; sent at start and whenever the coordinator asks again. */
public record AgentHello(
    int schemaVersion,
    String agentId,
    String host,
    String agentVersion,
    String fatbinHash,
    List<DeviceInfo> devices,
    Instant startedAt) implements Protocol.Message {

  public AgentHello {
    devices = List.copyOf(devices);
  }
}
