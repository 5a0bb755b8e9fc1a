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

  public float get(long index) {
    long mixed = mix(seed + index * 0x9E3779B97F4A7C15L);
    return Float.intBitsToFloat(0x3F800000 | (int) (mixed >>> 41));
  }

  /** Writes elements {@code [first, first + count)} into {@code segment} starting at its element 0. */
  public void fill(MemorySegment segment, long first, long count) {
    for (long i = 0; i < count; i++) {
      segment.setAtIndex(ValueLayout.JAVA_FLOAT, i, get(first + i));
    }
  }

  /** SplitMix64's finaliser: every output bit depends on every input bit. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
