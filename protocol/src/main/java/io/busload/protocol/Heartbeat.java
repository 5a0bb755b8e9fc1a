package io.busload.protocol;

import java.time.Instant;
import java.util.List;

/** Sent by an agent every few seconds; a coordinator that stops hearing it marks the agent offline. */
public record Heartbeat(int schemaVersion, String agentId, Instant sentAt, List<DeviceState> devices)
    implements Protocol.Message {

  public Heartbeat {
    devices = List.copyOf(devices);
  }

  /** What one device is doing now: {@code runId} is null when it is idle. */
  public record DeviceState(String deviceId, String runId, String kernel, int completed, int total) {}
}
