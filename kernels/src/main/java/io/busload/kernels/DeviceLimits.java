package io.busload.kernels;

/**
 * What a family needs to know about a device to size and skip its cases, known before anything is allocated.
 *
 * @param kind {@code cuda} or {@code cpu}
 * @param memoryBytes total device memory (host RAM for a CPU)
 * @param freeBytes free now ({@code cuMemGetInfo}; available RAM for a CPU)
 * @param l2Bytes last-level cache size, 0 when unknown
 * @param multiprocessors SMs, or hardware threads for a CPU
 * @param ordinal this device's index among the host's devices of its kind ({@code cuda:N}); 0 for a CPU
 * @param hostDevices how many devices of its kind the host has: the GPU pairs a link suite can measure
 */
public record DeviceLimits(String kind, long memoryBytes, long freeBytes, long l2Bytes, int multiprocessors,
    int ordinal, int hostDevices) {
  public static final String CUDA = "cuda";
  public static final String CPU = "cpu";

  public DeviceLimits {
    if (ordinal < 0 || ordinal >= hostDevices) {
      throw new IllegalArgumentException("ordinal: must be in 0.." + (hostDevices - 1) + ", got " + ordinal);
    }
  }

  /** The only device of its kind on its host. */
  public DeviceLimits(String kind, long memoryBytes, long freeBytes, long l2Bytes, int multiprocessors) {
    this(kind, memoryBytes, freeBytes, l2Bytes, multiprocessors, 0, 1);
  }

  /** How the command line names device {@code index} of this host ({@code cuda:1}). */
  public String name(int index) {
    return gpu() ? kind + ":" + index : kind;
  }

  public boolean gpu() {
    return CUDA.equals(kind);
  }

  /** Bytes a default size may use: half the card (or RAM), never more than is free. */
  public long defaultBudgetBytes() {
    return Math.min(memoryBytes / 2, freeBytes);
  }
}
