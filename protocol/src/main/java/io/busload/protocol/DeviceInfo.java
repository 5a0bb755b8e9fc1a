package io.busload.protocol;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * What a device is, as measured results must carry it (docs/design/invariants.md#device-identity).
 *
 * @param id fleet-unique device id, {@code host/cuda:N} or {@code host/cpu}
 * @param kind {@code cuda} or {@code cpu}
 * @param name marketing name ("NVIDIA H100 80GB HBM3") or the CPU model, labelled as a CPU
 * @param uuid CUDA device UUID; null for a CPU
 * @param computeCapability "9.0"; null for a CPU
 * @param multiprocessors SMs, or hardware threads for a CPU
 * @param l2Bytes L2 cache size in bytes, 0 when unknown
 * @param memoryBytes total device memory in bytes
 * @param memoryClockHz peak memory clock in hertz, 0 when unknown
 * @param busWidthBits memory bus width in bits, 0 when unknown
 * @param theoreticalPeakBytesPerSecond memory clock x bus width x 2, 0 when unknown
 * @param driverVersion CUDA driver version ("13.0") or the OS kernel for a CPU
 * @param topology its PCIe link, NUMA node and links to the host's other GPUs; null for a CPU, for
 *     results from before it was recorded, and where it could not be read
 */
public record DeviceInfo(
    String id,
    String kind,
    String name,
    String uuid,
    String computeCapability,
    int multiprocessors,
    long l2Bytes,
    long memoryBytes,
    long memoryClockHz,
    int busWidthBits,
    double theoreticalPeakBytesPerSecond,
    String driverVersion,
    @JsonInclude(JsonInclude.Include.NON_NULL) Topology topology) {

  /** A device without a recorded topology: a CPU, or a GPU whose agent did not record one. */
  public DeviceInfo(String id, String kind, String name, String uuid, String computeCapability, int multiprocessors,
      long l2Bytes, long memoryBytes, long memoryClockHz, int busWidthBits, double theoreticalPeakBytesPerSecond,
      String driverVersion) {
    this(id, kind, name, uuid, computeCapability, multiprocessors, l2Bytes, memoryBytes, memoryClockHz, busWidthBits,
        theoreticalPeakBytesPerSecond, driverVersion, null);
  }

  /** The same device with its topology. */
  public DeviceInfo withTopology(Topology topology) {
    return new DeviceInfo(id, kind, name, uuid, computeCapability, multiprocessors, l2Bytes, memoryBytes,
        memoryClockHz, busWidthBits, theoreticalPeakBytesPerSecond, driverVersion, topology);
  }

  public static final String CUDA = "cuda";
  public static final String CPU = "cpu";

  /** A short stable digest of what makes this device this device, for history and comparisons. */
  public String fingerprint() {
    String basis = String.join("|", kind, name, String.valueOf(uuid), String.valueOf(computeCapability),
        String.valueOf(multiprocessors), String.valueOf(memoryBytes), String.valueOf(busWidthBits));
    return Hashes.sha256(basis).substring(0, 16);
  }
}
