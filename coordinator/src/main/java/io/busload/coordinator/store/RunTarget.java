package io.busload.coordinator.store;

/**
 * A device a new sweep runs on, with the agent that owns it and the kernels expected of it.
 *
 * @param slurmPartition the Slurm partition whose jobs' agents measure it (the agent is then the node); null for a
 *     device of a standing agent
 */
public record RunTarget(String deviceId, String agentId, int total, String slurmPartition) {
  /** A device of a standing agent. */
  public RunTarget(String deviceId, String agentId, int total) {
    this(deviceId, agentId, total, null);
  }
}
