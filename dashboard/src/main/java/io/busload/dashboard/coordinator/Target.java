package io.busload.dashboard.coordinator;

/**
 * Which devices a schedule runs on: {@code all}, or those whose {@code model} (device name), {@code host} (the
 * agent's host name) or {@code device} (device id) equals {@code value}, or whose agent declares the host
 * {@code label} {@code value} (whole labels only).
 */
public record Target(String kind, String value) {
  public static final String ALL = "all";
  public static final String MODEL = "model";
  public static final String HOST = "host";
  public static final String DEVICE = "device";
  public static final String LABEL = "label";

  /** The coordinator answers kinds in upper case (MODEL) and takes either; the dashboard keeps them lower case. */
  public Target {
    kind = kind == null ? ALL : kind.toLowerCase(java.util.Locale.ROOT);
  }

  /** Whether this target names the device, by the coordinator's rule (OpenAPI, Target). */
  public boolean matches(Device device) {
    return switch (kind) {
      case MODEL -> value != null && value.equals(device.model());
      case HOST -> value != null && value.equals(device.host());
      case DEVICE -> value != null && value.equals(device.id());
      case LABEL -> value != null && device.labels().contains(value);
      default -> true;
    };
  }
}
