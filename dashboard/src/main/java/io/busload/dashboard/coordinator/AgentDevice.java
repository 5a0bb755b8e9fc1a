package io.busload.dashboard.coordinator;

/**
 * One device of an agent: the {@link io.busload.protocol.DeviceInfo} fields the fleet view shows, plus what it
 * runs now ({@code runId} null when idle).
 */
public record AgentDevice(
    String id, String kind, String name, String computeCapability, String fingerprint,
    String runId, String kernel, Integer completed, Integer total) {

  public boolean busy() {
    return runId != null;
  }
}
