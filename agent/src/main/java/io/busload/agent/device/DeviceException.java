package io.busload.agent.device;

/** A device failed one kernel; the message is what the invalid result reports. The agent carries on. */
public class DeviceException extends RuntimeException {
  public DeviceException(String message) {
    super(message);
  }

  public DeviceException(String message, Throwable cause) {
    super(message, cause);
  }
}
