package io.busload.agent.device;

import io.busload.protocol.HealthCounters;

/**
 * The energy and health sensor of a device that reads neither, for the reason {@code note} gives. One type for both:
 * they go unread for the same reasons (no NVML on the host, a GPU it does not know, the CPU backend).
 */
record Unread(String note) implements EnergySensor, HealthSensor {
  @Override
  public boolean reads() {
    return false;
  }

  @Override
  public long totalMillijoules() {
    throw new IllegalStateException("no energy readings here: " + note);
  }

  @Override
  public long powerMilliwatts() {
    throw new IllegalStateException("no power readings here: " + note);
  }

  @Override
  public HealthCounters read() {
    return HealthCounters.NONE;
  }

  @Override
  public XidWatch watchXids() {
    return NOT_WATCHING;
  }
}
