package io.busload.kernels;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Random input that is a pure function of (seed, index): a device fills its input from it and the reference
 * check recomputes any element without keeping a host copy of a multi-GiB input.
 *
 * <p>Values are uniform in [1, 2): never zero, never NaN, so a kernel that reads nothing or the wrong
 * element cannot pass by accident (docs/design/invariants.md#measuring).
 */
public record RandomFloats(long seed) {

  /** Element {@code index}: 23 random mantissa bits under the exponent of 1; two elements share one 64-bit mix. */
  public float get(long index) {
    return value(mix(seed + (index >>> 1) * 0x9E3779B97F4A7C15L), (int) (index & 1));
  }

  /** Writes elements {@code [first, first + count)} into {@code segment} starting at its element 0. */
  public void fill(MemorySegment segment, long first, long count) {
    long i = 0;
    while (i < count) {
      long index = first + i;
      long mixed = mix(seed + (index >>> 1) * 0x9E3779B97F4A7C15L);
      for (int lane = (int) (index & 1); lane < 2 && i < count; lane++, i++) {
        segment.setAtIndex(ValueLayout.JAVA_FLOAT, i, value(mixed, lane));
      }
    }
  }

  private static float value(long mixed, int lane) {
    int mantissa = (int) (lane == 0 ? mixed >>> 41 : (mixed >>> 9) & 0x7FFFFF);
    return Float.intBitsToFloat(0x3F800000 | mantissa);
  }

  /** SplitMix64's finaliser: every output bit depends on every input bit. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
