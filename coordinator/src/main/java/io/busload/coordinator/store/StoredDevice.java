package io.busload.coordinator.store;

import io.busload.protocol.DeviceInfo;
import java.time.Instant;
import java.util.List;

/**
 * A device as the store knows it: its agent, host and the host's labels (for schedule targets) and its last hello's
 * description.
 */
public record StoredDevice(String id, String agentId, String host, String model, String fingerprint, DeviceInfo info,
    Instant lastSeen, List<String> labels) {

  public StoredDevice {
    labels = List.copyOf(labels);
  }
}
