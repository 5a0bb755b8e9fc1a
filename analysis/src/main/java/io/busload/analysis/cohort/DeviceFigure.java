package io.busload.analysis.cohort;

/**
 * One device's figure for one kernel case: typically the median bandwidth of its recent valid results.
 *
 * @param series the kernel case, the same key on every device ("stride-copy-fp32 size=67108864;stride=4")
 * @param kernel the kernel's name, for sentences
 * @param value higher is better (bytes per second)
 * @param smMHz SM clock while measured; null when not recorded
 * @param memMHz memory clock while measured; null when not recorded
 */
public record DeviceFigure(String deviceId, String deviceName, String driver, String series, String kernel,
    double value, Double smMHz, Double memMHz) {

  /** Devices of one model and driver are compared with each other, and with no one else. */
  public String cohort() {
    return deviceName + " / driver " + driver;
  }
}
