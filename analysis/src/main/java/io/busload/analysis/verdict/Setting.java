package io.busload.analysis.verdict;

/**
 * Where and with what a result was measured, for naming what differs between two results.
 *
 * @param deviceName marketing name ("NVIDIA H100 80GB HBM3")
 * @param fingerprint digest of what makes the device that device (protocol DeviceInfo.fingerprint)
 * @param driver CUDA driver version, or the OS kernel for a CPU
 */
public record Setting(String deviceName, String fingerprint, String driver, String agentVersion, String fatbinHash,
    Conditions conditions) {

  public Setting {
    conditions = conditions == null ? Conditions.NOT_RECORDED : conditions;
  }
}
