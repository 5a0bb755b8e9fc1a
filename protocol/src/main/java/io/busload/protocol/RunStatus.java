package io.busload.protocol;

import java.time.Instant;

/** Progress of one run on one device, reported by the agent. */
public record RunStatus(
    int schemaVersion,
    String runId,
    String sweepId,
    String agentId,
    String deviceId,
    State state,
    int completed,
    int total,
    String message,
    Instant at) implements Protocol.Message {

  public enum State { QUEUED, RUNNING, DONE, FAILED, INTERRUPTED }
}
