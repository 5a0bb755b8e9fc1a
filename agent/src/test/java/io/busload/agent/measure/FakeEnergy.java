package io.busload.agent.measure;

import io.busload.agent.device.EnergySensor;
import java.util.function.LongSupplier;

/** An energy sensor that reads, each reading what its test's script makes of the moment it is asked. */
record FakeEnergy(String note, LongSupplier millijoules, LongSupplier milliwatts) implements EnergySensor {
  @Override
  public boolean reads() {
    return true;
  }

  @Override
  public long totalMillijoules() {
    return millijoules.getAsLong();
  }

  @Override
  public long powerMilliwatts() {
    return milliwatts.getAsLong();
  }
}
