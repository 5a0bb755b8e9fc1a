package io.busload.protocol;

import java.util.Map;
import java.util.Optional;

/**
 * The Slurm job an agent measured in, carried by every result that agent sends: on a Slurm cluster a compute node
 * belongs to whoever holds the allocation, so the job is what ties a number to the allocation it was taken in
 * (its node, its neighbours, its accounting).
 *
 * @param jobId Slurm's job id ({@code SLURM_JOB_ID}), with the array task where there is one
 * @param node the node the job ran on ({@code SLURMD_NODENAME})
 */
public record SlurmJob(String jobId, String node) {
  /** Longer than any id Slurm gives, short enough to store beside each result. */
  public static final int MAX_LENGTH = 100;

  public SlurmJob {
    check("jobId", jobId);
    check("node", node);
  }

  /**
   * The job this process runs in, from the variables Slurm sets in a job's environment; empty outside a job, or when
   * either is missing.
   *
   * @throws IllegalArgumentException naming the variable when it is set but not an id
   */
  public static Optional<SlurmJob> fromEnvironment(Map<String, String> env) {
    String jobId = env.get("SLURM_JOB_ID");
    String node = env.get("SLURMD_NODENAME");
    if (jobId == null || jobId.isBlank() || node == null || node.isBlank()) {
      return Optional.empty();
    }
    String arrayJob = env.get("SLURM_ARRAY_JOB_ID");
    String arrayTask = env.get("SLURM_ARRAY_TASK_ID");
    String id = arrayJob != null && !arrayJob.isBlank() && arrayTask != null && !arrayTask.isBlank()
        ? arrayJob.strip() + "_" + arrayTask.strip() : jobId.strip();
    try {
      return Optional.of(new SlurmJob(id, node.strip()));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("SLURM_JOB_ID/SLURMD_NODENAME: " + e.getMessage(), e);
    }
  }

  private static void check(String field, String value) {
    if (value == null || value.isBlank() || value.length() > MAX_LENGTH
        || !value.chars().allMatch(c -> Character.isLetterOrDigit(c) || c == '_' || c == '-' || c == '.')) {
      throw new IllegalArgumentException("slurmJob." + field + ": '" + value + "' must be 1 to " + MAX_LENGTH
          + " letters, digits, '_', '-' or '.'");
    }
  }
}
