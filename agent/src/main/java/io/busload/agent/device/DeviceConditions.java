package io.busload.agent.device;

/**
 * What the device was doing around a measurement: clocks, temperature, throttle reasons, other processes.
 *
 * @param text one line for the result's method ({@code sm 1980 MHz, mem 2619 MHz, 41 C, throttle 0x0, no other processes})
 * @param throttling a throttle reason other than idle or a clock setting was active
 * @param shared another process had a context on the GPU
 */
public record DeviceConditions(String text, boolean throttling, boolean shared) {
  public static DeviceConditions notRecorded(String why) {
    return new DeviceConditions("not recorded: " + why, false, false);
  }

  /** The warning a result carries, or null. */
  public static String warning(DeviceConditions before, DeviceConditions after) {
    boolean throttling = before.throttling() || after.throttling();
    boolean shared = before.shared() || after.shared();
    if (!throttling && !shared) {
      return null;
    }
    return "WARNING: the GPU was " + (throttling ? "throttling" : "") + (throttling && shared ? " and " : "")
        + (shared ? "shared with other processes" : "") + " during this measurement";
  }
}
