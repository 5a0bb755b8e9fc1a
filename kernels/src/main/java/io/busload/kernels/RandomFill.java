package io.busload.kernels;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Seeded random input of any {@link ElementType}, a pure function of (seed, index) so backends fill in
 * chunks and in parallel and a reference can recompute any element. Never zero, never NaN, never the
 * all-ones {@link Poison#BYTE} pattern: floats lie in [1, 2), int8 in 1..127, int32 in 1..2^30.
 */
public final class RandomFill {
  private RandomFill() {}

  /** Writes elements {@code [first, first + chunk.byteSize() / type.bytes())} of a {@code type} input into {@code chunk}. */
  public static void fill(ElementType type, long seed, long first, MemorySegment chunk) {
    long count = chunk.byteSize() / type.bytes();
    RandomFloats floats = new RandomFloats(seed);
    switch (type) {
      case INT8 -> {
        for (long i = 0; i < count; i++) {
          chunk.set(ValueLayout.JAVA_BYTE, i, (byte) (1 + Math.floorMod(mix(seed, first + i), 127)));
        }
      }
      case FP16 -> {
        for (long i = 0; i < count; i++) {
          chunk.setAtIndex(ValueLayout.JAVA_SHORT, i, (short) (0x3C00 | (mix(seed, first + i) & 0x3FF)));
        }
      }
      case FP64 -> {
        for (long i = 0; i < count; i++) {
          chunk.setAtIndex(ValueLayout.JAVA_LONG, i, 0x3FF0000000000000L | (mix(seed, first + i) >>> 12));
        }
      }
      case INT32 -> {
        for (long i = 0; i < count; i++) {
          chunk.setAtIndex(ValueLayout.JAVA_INT, i, 1 + (int) (mix(seed, first + i) >>> 34));
        }
      }
      case FP32, FLOAT2, FLOAT4 -> floats.fill(chunk, first * (type.bytes() / 4), count * (type.bytes() / 4));
    }
  }

  /** SplitMix64 of (seed, index): every output bit depends on every input bit. */
  public static long mix(long seed, long index) {
    long z = seed + index * 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
