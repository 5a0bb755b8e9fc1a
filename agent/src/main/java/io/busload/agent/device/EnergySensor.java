package io.busload.agent.device;

/**
 * A GPU's total-energy counter and power reading (NVML), read around each case to say what it drew. A device
 * either reads them ({@link #reads()}) or says why it cannot: no NVML on the host, a GPU older than Volta whose
 * NVML has no energy counter, the CPU backend. No sensor ever makes up a reading: a missing one is absent, not 0.
 */
public interface EnergySensor {
  /** Whether {@link #totalMillijoules()} and {@link #powerMilliwatts()} answer here. */
  boolean reads();

  /** Where readings come from ({@code NVML, driver 580.159.04}), or why there are none. */
  String note();

  /**
   * Energy the GPU has drawn since the driver was loaded, in millijoules; only when {@link #reads()}. Throws
   * {@link DeviceException} when a reading fails after the sensor worked.
   */
  long totalMillijoules();

  /**
   * The GPU's power draw now, in milliwatts; only when {@link #reads()}. Instantaneous where NVML gives it
   * ({@code NVML_FI_DEV_POWER_INSTANT}): on Hopper, {@code nvmlDeviceGetPowerUsage} averages the last second, which
   * right after a case still holds that case's draw.
   */
  long powerMilliwatts();

  /** A sensor that reads nothing, for the reason given. */
  static EnergySensor none(String why) {
    return new Unread(why);
  }
}
