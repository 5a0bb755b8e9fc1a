package io.busload.agent.device;

import io.busload.protocol.Clocks;

/**
 * The device's clocks and throttle reasons, read after every sample (nvbench's rule: a sample taken while
 * the GPU throttled is dropped and counted). A device either reads them ({@link Clocks.Reading#READ}) or says,
 * typed, why it cannot: a GPU host without NVML ({@link Clocks.Reading#NOT_READ}), a device without GPU clocks
 * ({@link Clocks.Reading#UNAVAILABLE}). No sensor ever makes up a reading.
 */
public interface ClockSensor {
  /** One reading: SM and memory clocks in MHz and NVML's throttle reason bits. */
  record Reading(int smMHz, int memMHz, long throttleReasons) {
    /** Whether a reason other than idle or a clock setting was active. */
    public boolean throttling() {
      return Clocks.throttling(throttleReasons);
    }
  }

  /** Whether {@link #read()} answers here. */
  Clocks.Reading availability();

  /** Where readings come from ({@code NVML 13.580.82}), or why there are none. */
  String note();

  /**
   * The clocks now; only when {@link #availability()} is {@link Clocks.Reading#READ}. Throws {@link
   * DeviceException} when a reading fails after the sensor worked (the measurement then stops reading).
   */
  Reading read();

  /** A sensor that reads nothing, for the reason given. */
  static ClockSensor none(Clocks.Reading availability, String why) {
    return new Unclocked(availability, why);
  }

  /** The sensor of a device whose clocks are not read: {@code availability} says which way, {@code note} why. */
  record Unclocked(Clocks.Reading availability, String note) implements ClockSensor {
    public Unclocked {
      if (availability == Clocks.Reading.READ) {
        throw new IllegalArgumentException("a sensor that reads nothing cannot be READ");
      }
    }

    @Override
    public Reading read() {
      throw new IllegalStateException("no clock readings here: " + note);
    }
  }
}
