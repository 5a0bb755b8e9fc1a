package io.busload.dashboard.coordinator;

import io.busload.protocol.DeviceInfo;
import java.time.Instant;

/** A device the coordinator's store knows ({@code GET /api/devices}), with its fingerprint, host and model. */
public record Device(String id, String agentId, String host, String model, String fingerprint, boolean online,
    Instant lastSeen, DeviceInfo info) {}
