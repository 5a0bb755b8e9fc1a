package io.busload.coordinator.store;

import java.util.Map;

/** The oldest queued run of a device, with what the agent needs to start it. */
public record QueuedRun(
    String runId, String sweepId, String deviceId, String agentId, String suite, Map<String, String> options) {

  public QueuedRun {
    options = Map.copyOf(options);
  }
}
