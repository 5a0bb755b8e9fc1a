package io.busload.agent.measure;

import io.busload.agent.device.Device;

/**
 * How {@link Measurement} warms up and samples one case on a device, as data, so the native cross-check can be
 * given exactly the same method through the plan file (deploy/gpu/crosscheck.cu): a harness
 * with a method of its own (say 20 warm-up targets and at least 31 samples, against the agent's 10 and its stopping
 * rule) would measure something else.
 *
 * @param warmupSamples the warm-up lasts at least this many sample targets
 * @param minWarmupLaunches and at least this many launches
 * @param sampleTargetSeconds a sample's batch of launches lasts at least this long
 * @param maxLaunchesPerSample the batch never exceeds this
 * @param rule when sampling stops
 */
public record SamplingMethod(int warmupSamples, int minWarmupLaunches, double sampleTargetSeconds, int maxLaunchesPerSample,
    StoppingRule rule) {

  /** What {@link Measurement#Measurement(Device, RunContext, String)} does on {@code device}. */
  public static SamplingMethod of(Device device) {
    return new SamplingMethod(Measurement.WARMUP_SAMPLES, Measurement.MIN_WARMUP_LAUNCHES, device.sampleTargetSeconds(),
        Measurement.MAX_LAUNCHES_PER_SAMPLE, StoppingRule.standard(device.timeCapSeconds()));
  }
}
