package io.busload.dashboard.coordinator;

import io.busload.protocol.DeviceInfo;
import java.time.Instant;
import java.util.List;

/**
 * A device the coordinator's store knows ({@code GET /api/devices}), with its fingerprint, host, model and its
 * agent's host labels.
 */
public record Device(String id, String agentId, String host, String model, String fingerprint, boolean online,
    Instant lastSeen, DeviceInfo info, List<String> labels) {

  /** A coordinator from before host labels sends none. */
  public Device {
    labels = labels == null ? List.of() : List.copyOf(labels);
  }
}
