package io.busload.dashboard.coordinator;

/** One run ({@code GET /api/runs}): one suite on one device, as part of a sweep. */
public record Run(String runId, String sweepId, String deviceId, String agentId, String state, int completed,
    int total, String message) {}
