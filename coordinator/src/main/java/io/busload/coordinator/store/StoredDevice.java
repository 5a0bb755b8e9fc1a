package io.busload.coordinator.store;

import io.busload.protocol.DeviceInfo;
import java.time.Instant;

/** A device as the store knows it: its agent and host (for schedule targets) and its last hello's description. */
public record StoredDevice(String id, String agentId, String host, String model, String fingerprint, DeviceInfo info,
    Instant lastSeen) {}
