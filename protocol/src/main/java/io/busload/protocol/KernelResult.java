package io.busload.protocol;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * One kernel measured once on one device: the unit the coordinator stores, by {@code id}.
 *
 * <p>All figures are SI: seconds per launch, bytes, bytes per second. {@code bandwidth} is null unless the
 * output passed its check (a number is reported only for a kernel whose output was right).
 *
 * @param id made by the agent when measured; the store keeps the first copy with an id and skips the rest
 * @param runId null when measured standalone (CLI)
 * @param params the kernel's parameters, sorted by name (numbers, strings or booleans)
 * @param valid whether the output matched the CPU reference
 * @param mismatches the first mismatches (index, expected, actual) when invalid, or the error that failed it
 * @param medianSeconds median time of one launch over the samples
 * @param relativeSpread (max - min) / median over the samples
 * @param samples seconds per launch, one per sample, in measuring order
 * @param launchesPerSample launches timed between one event pair per sample
 * @param warmupLaunches launches run before the first sample
 * @param bytesRead useful bytes read by one launch
 * @param bytesWritten useful bytes written by one launch
 * @param bytes {@code bytesRead + bytesWritten}
 * @param bandwidth {@code bytes / medianSeconds} in bytes per second; null when invalid
 * @param method how it was measured, in words, for whoever reads the number
 * @param counters hardware counters beside the model's prediction where the run was profiled; null otherwise (and
 *     in every message written before they existed: the field is optional within schema version 1)
 * @param origin where the coordinator got the result when not from a fleet agent (pushed); set by the
 *     coordinator only, null on the wire from agents and in every result the agent prints
 * @param status what became of the case; a message or file from before it existed is given the status
 *     its other fields imply ({@link ResultStatus#legacy})
 * @param sampling how the samples were timed, clocks and throttling, the working set against L2; null
 *     when nothing was timed, and in every message written before it existed
 * @param energy what the case drew, from the GPU's energy counter over a window after the timed samples; null where
 *     it was not read (no NVML or no counter, the CPU backend, a case not measured) and in messages without it
 * @param slurmJob the Slurm job whose agent measured it; null for an agent that is not a Slurm job's, and in messages
 *     without it
 * @param health the GPU's error counters when the run began and after this case, and XID events meanwhile; null
 *     where not read (no NVML, the CPU backend) and in messages without it
 */
public record KernelResult(
    int schemaVersion,
    UUID id,
    String runId,
    String sweepId,
    String agentId,
    String agentVersion,
    String fatbinHash,
    DeviceInfo device,
    String suite,
    String kernel,
    Map<String, Object> params,
    boolean valid,
    List<String> mismatches,
    double medianSeconds,
    double minSeconds,
    double maxSeconds,
    double relativeSpread,
    List<Double> samples,
    int launchesPerSample,
    int warmupLaunches,
    long bytesRead,
    long bytesWritten,
    long bytes,
    Double bandwidth,
    String method,
    Instant measuredAt,
    // Left out when null: an unprofiled result reads on the wire exactly as results did before counters existed.
    @JsonInclude(JsonInclude.Include.NON_NULL) Counters counters,
    // Left out when null: a fleet result reads exactly as results did before pushes existed.
    @JsonInclude(JsonInclude.Include.NON_NULL) Origin origin,
    ResultStatus status,
    // Left out when null: an untimed result reads on the wire as one from an agent that records no sampling.
    @JsonInclude(JsonInclude.Include.NON_NULL) Sampling sampling,
    // Left out when null: a result whose energy was not read says so by its absence, never by a 0.
    @JsonInclude(JsonInclude.Include.NON_NULL) Energy energy,
    // Left out when null: a result from an agent that is not a Slurm job's reads as before jobs were recorded.
    @JsonInclude(JsonInclude.Include.NON_NULL) SlurmJob slurmJob,
    // Left out when null: a result whose health was not read says so by its absence.
    @JsonInclude(JsonInclude.Include.NON_NULL) Health health) implements Protocol.Message {

  public KernelResult {
    params = new TreeMap<>(params);
    mismatches = List.copyOf(mismatches);
    samples = List.copyOf(samples);
    if (!valid) {
      bandwidth = null;
    }
    if (status == null) {
      status = ResultStatus.legacy(valid, method, mismatches);
    }
    if (valid != (status == ResultStatus.MEASURED)) {
      throw new IllegalArgumentException("status: " + status + " with valid=" + valid
          + " (only a MEASURED result is valid)");
    }
  }

  /**
   * A result built field by field, by name: the schema version of this build, no params, mismatches or samples, and
   * null for every optional part until set.
   */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding every field of this result, to change some. */
  public Builder toBuilder() {
    return new Builder().schemaVersion(schemaVersion).id(id).runId(runId).sweepId(sweepId).agentId(agentId)
        .agentVersion(agentVersion).fatbinHash(fatbinHash).device(device).suite(suite).kernel(kernel).params(params)
        .valid(valid).mismatches(mismatches).medianSeconds(medianSeconds).minSeconds(minSeconds)
        .maxSeconds(maxSeconds).relativeSpread(relativeSpread).samples(samples).launchesPerSample(launchesPerSample)
        .warmupLaunches(warmupLaunches).bytesRead(bytesRead).bytesWritten(bytesWritten).bytes(bytes)
        .bandwidth(bandwidth).method(method).measuredAt(measuredAt).counters(counters).origin(origin).status(status)
        .sampling(sampling).energy(energy).slurmJob(slurmJob).health(health);
  }

  /** Sets the fields of a {@link KernelResult} by name; {@link #build} checks them as the record does. */
  public static final class Builder {
    private int schemaVersion = Protocol.SCHEMA_VERSION;
    private UUID id;
    private String runId;
    private String sweepId;
    private String agentId;
    private String agentVersion;
    private String fatbinHash;
    private DeviceInfo device;
    private String suite;
    private String kernel;
    private Map<String, Object> params = Map.of();
    private boolean valid;
    private List<String> mismatches = List.of();
    private double medianSeconds;
    private double minSeconds;
    private double maxSeconds;
    private double relativeSpread;
    private List<Double> samples = List.of();
    private int launchesPerSample;
    private int warmupLaunches;
    private long bytesRead;
    private long bytesWritten;
    private long bytes;
    private Double bandwidth;
    private String method;
    private Instant measuredAt;
    private Counters counters;
    private Origin origin;
    private ResultStatus status;
    private Sampling sampling;
    private Energy energy;
    private SlurmJob slurmJob;
    private Health health;

    private Builder() {}

    public Builder schemaVersion(int value) {
      schemaVersion = value;
      return this;
    }

    public Builder id(UUID value) {
      id = value;
      return this;
    }

    public Builder runId(String value) {
      runId = value;
      return this;
    }

    public Builder sweepId(String value) {
      sweepId = value;
      return this;
    }

    public Builder agentId(String value) {
      agentId = value;
      return this;
    }

    public Builder agentVersion(String value) {
      agentVersion = value;
      return this;
    }

    public Builder fatbinHash(String value) {
      fatbinHash = value;
      return this;
    }

    public Builder device(DeviceInfo value) {
      device = value;
      return this;
    }

    public Builder suite(String value) {
      suite = value;
      return this;
    }

    public Builder kernel(String value) {
      kernel = value;
      return this;
    }

    public Builder params(Map<String, Object> value) {
      params = value;
      return this;
    }

    public Builder valid(boolean value) {
      valid = value;
      return this;
    }

    public Builder mismatches(List<String> value) {
      mismatches = value;
      return this;
    }

    public Builder medianSeconds(double value) {
      medianSeconds = value;
      return this;
    }

    public Builder minSeconds(double value) {
      minSeconds = value;
      return this;
    }

    public Builder maxSeconds(double value) {
      maxSeconds = value;
      return this;
    }

    public Builder relativeSpread(double value) {
      relativeSpread = value;
      return this;
    }

    public Builder samples(List<Double> value) {
      samples = value;
      return this;
    }

    public Builder launchesPerSample(int value) {
      launchesPerSample = value;
      return this;
    }

    public Builder warmupLaunches(int value) {
      warmupLaunches = value;
      return this;
    }

    public Builder bytesRead(long value) {
      bytesRead = value;
      return this;
    }

    public Builder bytesWritten(long value) {
      bytesWritten = value;
      return this;
    }

    public Builder bytes(long value) {
      bytes = value;
      return this;
    }

    public Builder bandwidth(Double value) {
      bandwidth = value;
      return this;
    }

    public Builder method(String value) {
      method = value;
      return this;
    }

    public Builder measuredAt(Instant value) {
      measuredAt = value;
      return this;
    }

    public Builder counters(Counters value) {
      counters = value;
      return this;
    }

    public Builder origin(Origin value) {
      origin = value;
      return this;
    }

    public Builder status(ResultStatus value) {
      status = value;
      return this;
    }

    public Builder sampling(Sampling value) {
      sampling = value;
      return this;
    }

    public Builder energy(Energy value) {
      energy = value;
      return this;
    }

    public Builder slurmJob(SlurmJob value) {
      slurmJob = value;
      return this;
    }

    public Builder health(Health value) {
      health = value;
      return this;
    }

    public KernelResult build() {
      return new KernelResult(schemaVersion, id, runId, sweepId, agentId, agentVersion, fatbinHash, device, suite,
          kernel, params, valid, mismatches, medianSeconds, minSeconds, maxSeconds, relativeSpread, samples,
          launchesPerSample, warmupLaunches, bytesRead, bytesWritten, bytes, bandwidth, method, measuredAt, counters,
          origin, status, sampling, energy, slurmJob, health);
    }
  }

  /** This result with {@code value} as its counters (null: none). */
  public KernelResult withCounters(Counters value) {
    return toBuilder().counters(value).build();
  }

  /** This result with {@code value} as its origin (null: a fleet result). */
  public KernelResult withOrigin(Origin value) {
    return toBuilder().origin(value).build();
  }

  /** This result as part of run {@code newRunId} of sweep {@code newSweepId}. */
  public KernelResult withRun(String newRunId, String newSweepId) {
    return toBuilder().runId(newRunId).sweepId(newSweepId).build();
  }

  /** This result with {@code value} as its method, in words. */
  public KernelResult withMethod(String value) {
    return toBuilder().method(value).build();
  }

  /** This result with its status and how it was sampled. */
  public KernelResult withSampling(ResultStatus newStatus, Sampling value) {
    return toBuilder().status(newStatus).sampling(value).build();
  }

  /** This result with what its case drew (null: not read). */
  public KernelResult withEnergy(Energy value) {
    return toBuilder().energy(value).build();
  }

  /** This result with what NVML said of the GPU's health around it (null: not read). */
  public KernelResult withHealth(Health value) {
    return toBuilder().health(value).build();
  }

  /** This result as measured in Slurm job {@code value} (null: in none). */
  public KernelResult withSlurmJob(SlurmJob value) {
    return toBuilder().slurmJob(value).build();
  }
}
