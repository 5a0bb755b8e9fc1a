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

  /** A result without a health reading. */
  public KernelResult(int schemaVersion, UUID id, String runId, String sweepId, String agentId, String agentVersion,
      String fatbinHash, DeviceInfo device, String suite, String kernel, Map<String, Object> params, boolean valid,
      List<String> mismatches, double medianSeconds, double minSeconds, double maxSeconds, double relativeSpread,
      List<Double> samples, int launchesPerSample, int warmupLaunches, long bytesRead, long bytesWritten, long bytes,
      Double bandwidth, String method, Instant measuredAt, Counters counters, Origin origin, ResultStatus status,
      Sampling sampling, Energy energy) {
    this(schemaVersion, id, runId, sweepId, agentId, agentVersion, fatbinHash, device, suite, kernel, params, valid,
        mismatches, medianSeconds, minSeconds, maxSeconds, relativeSpread, samples, launchesPerSample, warmupLaunches,
        bytesRead, bytesWritten, bytes, bandwidth, method, measuredAt, counters, origin, status, sampling, energy, null);
  }

  /** A result without an energy reading: every one that is not a GPU's measured case. */
  public KernelResult(int schemaVersion, UUID id, String runId, String sweepId, String agentId, String agentVersion,
      String fatbinHash, DeviceInfo device, String suite, String kernel, Map<String, Object> params, boolean valid,
      List<String> mismatches, double medianSeconds, double minSeconds, double maxSeconds, double relativeSpread,
      List<Double> samples, int launchesPerSample, int warmupLaunches, long bytesRead, long bytesWritten, long bytes,
      Double bandwidth, String method, Instant measuredAt, Counters counters, Origin origin, ResultStatus status,
      Sampling sampling) {
    this(schemaVersion, id, runId, sweepId, agentId, agentVersion, fatbinHash, device, suite, kernel, params, valid,
        mismatches, medianSeconds, minSeconds, maxSeconds, relativeSpread, samples, launchesPerSample, warmupLaunches,
        bytesRead, bytesWritten, bytes, bandwidth, method, measuredAt, counters, origin, status, sampling, null, null);
  }

  /** A result with counters and origin, its status implied by its other fields (results that carry no status). */
  public KernelResult(int schemaVersion, UUID id, String runId, String sweepId, String agentId, String agentVersion,
      String fatbinHash, DeviceInfo device, String suite, String kernel, Map<String, Object> params, boolean valid,
      List<String> mismatches, double medianSeconds, double minSeconds, double maxSeconds, double relativeSpread,
      List<Double> samples, int launchesPerSample, int warmupLaunches, long bytesRead, long bytesWritten, long bytes,
      Double bandwidth, String method, Instant measuredAt, Counters counters, Origin origin) {
    this(schemaVersion, id, runId, sweepId, agentId, agentVersion, fatbinHash, device, suite, kernel, params, valid,
        mismatches, medianSeconds, minSeconds, maxSeconds, relativeSpread, samples, launchesPerSample, warmupLaunches,
        bytesRead, bytesWritten, bytes, bandwidth, method, measuredAt, counters, origin, null, null);
  }

  /** A result without counters: every result not profiled, as results were before counters existed. */
  public KernelResult(int schemaVersion, UUID id, String runId, String sweepId, String agentId, String agentVersion,
      String fatbinHash, DeviceInfo device, String suite, String kernel, Map<String, Object> params, boolean valid,
      List<String> mismatches, double medianSeconds, double minSeconds, double maxSeconds, double relativeSpread,
      List<Double> samples, int launchesPerSample, int warmupLaunches, long bytesRead, long bytesWritten, long bytes,
      Double bandwidth, String method, Instant measuredAt) {
    this(schemaVersion, id, runId, sweepId, agentId, agentVersion, fatbinHash, device, suite, kernel, params, valid,
        mismatches, medianSeconds, minSeconds, maxSeconds, relativeSpread, samples, launchesPerSample, warmupLaunches,
        bytesRead, bytesWritten, bytes, bandwidth, method, measuredAt, null, null);
  }

  /** A result as an agent sends it: counters where profiled, no origin. */
  public KernelResult(int schemaVersion, UUID id, String runId, String sweepId, String agentId, String agentVersion,
      String fatbinHash, DeviceInfo device, String suite, String kernel, Map<String, Object> params, boolean valid,
      List<String> mismatches, double medianSeconds, double minSeconds, double maxSeconds, double relativeSpread,
      List<Double> samples, int launchesPerSample, int warmupLaunches, long bytesRead, long bytesWritten, long bytes,
      Double bandwidth, String method, Instant measuredAt, Counters counters) {
    this(schemaVersion, id, runId, sweepId, agentId, agentVersion, fatbinHash, device, suite, kernel, params, valid,
        mismatches, medianSeconds, minSeconds, maxSeconds, relativeSpread, samples, launchesPerSample, warmupLaunches,
        bytesRead, bytesWritten, bytes, bandwidth, method, measuredAt, counters, null);
  }

  /** This result with {@code value} as its counters (null: none). */
  public KernelResult withCounters(Counters value) {
    return copy(runId, sweepId, method, value, origin, status, sampling, energy);
  }

  /** This result with {@code value} as its origin (null: a fleet result). */
  public KernelResult withOrigin(Origin value) {
    return copy(runId, sweepId, method, counters, value, status, sampling, energy);
  }

  /** This result as part of run {@code newRunId} of sweep {@code newSweepId}. */
  public KernelResult withRun(String newRunId, String newSweepId) {
    return copy(newRunId, newSweepId, method, counters, origin, status, sampling, energy);
  }

  /** This result with {@code value} as its method, in words. */
  public KernelResult withMethod(String value) {
    return copy(runId, sweepId, value, counters, origin, status, sampling, energy);
  }

  /** This result with its status and how it was sampled. */
  public KernelResult withSampling(ResultStatus newStatus, Sampling value) {
    return copy(runId, sweepId, method, counters, origin, newStatus, value, energy);
  }

  /** This result with what its case drew (null: not read). */
  public KernelResult withEnergy(Energy value) {
    return copy(runId, sweepId, method, counters, origin, status, sampling, value);
  }

  /** This measurement with the fields that may change after it was taken replaced. */
  private KernelResult copy(String newRunId, String newSweepId, String newMethod, Counters newCounters,
      Origin newOrigin, ResultStatus newStatus, Sampling newSampling, Energy newEnergy) {
    return copy(newRunId, newSweepId, newMethod, newCounters, newOrigin, newStatus, newSampling, newEnergy, health);
  }

  /** This result with what NVML said of the GPU's health around it (null: not read). */
  public KernelResult withHealth(Health value) {
    return copy(runId, sweepId, method, counters, origin, status, sampling, energy, value);
  }

  private KernelResult copy(String newRunId, String newSweepId, String newMethod, Counters newCounters,
      Origin newOrigin, ResultStatus newStatus, Sampling newSampling, Energy newEnergy, Health newHealth) {
    return new KernelResult(schemaVersion, id, newRunId, newSweepId, agentId, agentVersion, fatbinHash, device, suite,
        kernel, params, valid, mismatches, medianSeconds, minSeconds, maxSeconds, relativeSpread, samples,
        launchesPerSample, warmupLaunches, bytesRead, bytesWritten, bytes, bandwidth, newMethod, measuredAt,
        newCounters, newOrigin, newStatus, newSampling, newEnergy, newHealth);
  }
}
