package io.busload.kernels;

/**
 * The coalescing model of one global memory access of a kernel: expected 32-byte sectors and 128-byte
 * lines per warp request, from {@link WarpSimulator}.
 *
 * @param access what is accessed, for example {@code load in} or {@code store out}
 * @param store true for a store, false for a load
 */
public record Coalescing(String access, boolean store, int sectorsPerRequest, int linesPerRequest,
    long requestedBytesPerRequest) {

  /** Useful fraction of the bytes the sectors carry: 1.0 when perfectly coalesced. */
  public double efficiency() {
    return (double) requestedBytesPerRequest / ((long) sectorsPerRequest * WarpSimulator.SECTOR_BYTES);
  }
}
