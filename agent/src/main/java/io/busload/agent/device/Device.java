package io.busload.agent.device;

import io.busload.kernels.DeviceLimits;
import io.busload.kernels.Program;
import io.busload.protocol.DeviceInfo;

/**
 * A device that runs the catalog's {@link Program}s. Every method blocks until the device has finished, and must
 * be called on the device's own {@link DeviceWorker} thread only (JCuda's context is bound to it).
 */
public interface Device extends AutoCloseable {
  DeviceInfo info();

  /** Short id as the command line names it: {@code cpu} or {@code cuda:0}. */
  String shortId();

  /** Memory (total and free now), L2 and SMs, for sizing and skipping cases; after {@link #attach()}. */
  DeviceLimits limits();

  /** How long one timed sample should last, so launch overhead stays outside the number. */
  double sampleTargetSeconds();

  /** Per kernel, stop sampling after this long even if the spread has not settled. */
  double timeCapSeconds();

  /** How a sample is timed, in words for the result's method ("between one CUDA event pair"). */
  String timerDescription();

  /** Binds this thread to the device (context, module); called once, first, on the worker thread. */
  void attach();

  /**
   * Allocates every buffer of {@code program}, fills its inputs and poisons its outputs. The returned workload
   * owns the memory until closed. {@link UnavailableException} when a step cannot run here (cuBLAS on a CPU).
   */
  Workload prepare(Program program);

  /** Clocks, temperature and other processes on the device now (nvidia-smi), or why they are not recorded. */
  DeviceConditions conditions();

  /** Clocks and throttle reasons to read after every sample, or why there are none. */
  ClockSensor clockSensor();

  /** The energy counter and power reading to read around each case, or why there are none. */
  /**
   * Whether the host may check one launch's output while this device times the next ones: true where the device
   * times its launches itself (a GPU's events), false where the host's cores are the device.
   */
  default boolean timesApartFromHost() {
    return false;
  }

  default EnergySensor energySensor() {
    return EnergySensor.none("this device has no energy counter");
  }

  /** The error counters and XID events to read around each run, or why there are none. */
  default HealthSensor healthSensor() {
    return HealthSensor.none("this device has no NVML health counters");
  }

  /**
   * Makes the device usable again after an error that poisons its context (an illegal address): a GPU resets
   * its primary context and reloads the fatbin. Returns what was done, in words, or null when nothing was needed.
   */
  String recover(DeviceException error);

  @Override
  void close();
}
