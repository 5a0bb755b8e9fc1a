package io.busload.kernels;

/**
 * What one launch must move and compute to do its job: useful bytes, not what the memory system moves
 * (a stride-32 load fetches 32 sectors for 128 useful bytes; that waste is what the suite measures).
 */
public record Traffic(long bytesRead, long bytesWritten, long flops) {
  public long bytes() {
    return bytesRead + bytesWritten;
  }
}
