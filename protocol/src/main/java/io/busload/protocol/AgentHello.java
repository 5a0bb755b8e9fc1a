package io.busload.protocol;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.List;

/**
 * An agent introducing itself and its devices; sent at start and whenever the coordinator asks again.
 *
 * @param labels what the lab calls this host ({@code lab-east}, {@code rack=a}: {@code BUSLOAD_LABELS} on the agent),
 *     for schedules that target hosts by label; empty when none. Added after schema 1 was out, compatibly: a hello
 *     without the field reads as no labels, a hello without labels leaves the field out, and a coordinator that
 *     does not know the field ignores it.
 */
public record AgentHello(
    int schemaVersion,
    String agentId,
    String host,
    String agentVersion,
    String fatbinHash,
    List<DeviceInfo> devices,
    Instant startedAt,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> labels) implements Protocol.Message {

  public AgentHello {
    devices = List.copyOf(devices);
    labels = labels == null ? List.of() : List.copyOf(labels);
  }

  /** A hello without labels, as every agent sent before labels existed. */
  public AgentHello(int schemaVersion, String agentId, String host, String agentVersion, String fatbinHash,
      List<DeviceInfo> devices, Instant startedAt) {
    this(schemaVersion, agentId, host, agentVersion, fatbinHash, devices, startedAt, List.of());
  }
}
