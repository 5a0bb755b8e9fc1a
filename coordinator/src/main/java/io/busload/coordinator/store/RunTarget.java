package io.busload.coordinator.store;

/** A device a new sweep runs on, with the agent that owns it and the kernels expected of it. */
public record RunTarget(String deviceId, String agentId, int total) {}
