package io.busload.agent.device;

/** A case cannot run on this device at all (cuBLAS on a CPU, no cuBLAS library): reported as unavailable, not failed. */
public final class UnavailableException extends DeviceException {
  public UnavailableException(String message) {
    super(message);
  }

  public UnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
