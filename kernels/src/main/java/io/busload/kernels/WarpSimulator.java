package io.busload.kernels;

import java.util.HashSet;
import java.util.Set;
import java.util.function.LongUnaryOperator;

/**
 * Counts what one warp-wide memory instruction touches: distinct 32-byte sectors (the DRAM/L2 unit) and
 * 128-byte lines (the L1 line), from the 32 byte addresses of its lanes. This is the coalescing model the
 * ncu profiling pass is set beside (sectors per request: docs/design/invariants.md#measuring).
 */
public final class WarpSimulator {
  public static final int WARP = 32;
  public static final int SECTOR_BYTES = 32;
  public static final int LINE_BYTES = 128;

  private WarpSimulator() {}

  /** What one request touched. */
  public record Request(int sectors, int lines, long requestedBytes) {}

  /**
   * @param laneAddress byte address accessed by lane 0..31
   * @param accessBytes bytes each lane reads or writes (4 for fp32)
   */
  public static Request simulate(LongUnaryOperator laneAddress, int accessBytes) {
    Set<Long> sectors = new HashSet<>();
    Set<Long> lines = new HashSet<>();
    for (int lane = 0; lane < WARP; lane++) {
      long first = laneAddress.applyAsLong(lane);
      long last = first + accessBytes - 1;
      for (long s = Math.floorDiv(first, SECTOR_BYTES); s <= Math.floorDiv(last, SECTOR_BYTES); s++) {
        sectors.add(s);
      }
      for (long l = Math.floorDiv(first, LINE_BYTES); l <= Math.floorDiv(last, LINE_BYTES); l++) {
        lines.add(l);
      }
    }
    return new Request(sectors.size(), lines.size(), (long) WARP * accessBytes);
  }
}
