package io.busload.kernels;

/**
 * What a family needs to know about a device to size and skip its cases, known before anything is allocated.
 *
 * @param kind {@code cuda} or {@code cpu}
 * @param memoryBytes total device memory (host RAM for a CPU)
 * @param freeBytes free now ({@code cuMemGetInfo}; available RAM for a CPU)
 * @param l2Bytes last-level cache size, 0 when unknown
 * @param multiprocessors SMs, or hardware threads for a CPU
 */
public record DeviceLimits(String kind, long memoryBytes, long freeBytes, long l2Bytes, int multiprocessors) {
  public static final String CUDA = "cuda";
  public static final String CPU = "cpu";

  public boolean gpu() {
    return CUDA.equals(kind);
  }

  /** Bytes a default size may use: half the card (or RAM), never more than is free. */
  public long defaultBudgetBytes() {
    return Math.min(memoryBytes / 2, freeBytes);
  }
}
