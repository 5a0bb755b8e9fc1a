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

  /**
   * Writes elements {@code [first, first + chunk.byteSize() / type.bytes())} of a {@code type} input into {@code chunk}.
   * Narrow types take several elements from one 64-bit mix (eight int8, four fp16, two int32, two fp32), so a fill
   * costs about one mix per 8 bytes whatever the type.
   */
  public static void fill(ElementType type, long seed, long first, MemorySegment chunk) {
    long count = chunk.byteSize() / type.bytes();
    switch (type) {
      case INT8 -> {
        long i = 0;
        while (i < count) {
          long index = first + i;
          long word = mix(seed, index >>> 3);
          for (int lane = (int) (index & 7); lane < 8 && i < count; lane++, i++) {
            chunk.set(ValueLayout.JAVA_BYTE, i, int8(word, lane));
          }
        }
      }
      case FP16 -> {
        long i = 0;
        while (i < count) {
          long index = first + i;
          long word = mix(seed, index >>> 2);
          for (int lane = (int) (index & 3); lane < 4 && i < count; lane++, i++) {
            chunk.setAtIndex(ValueLayout.JAVA_SHORT, i, (short) (0x3C00 | ((word >>> (16 * lane)) & 0x3FF)));
          }
        }
      }
      case FP64 -> {
        for (long i = 0; i < count; i++) {
          chunk.setAtIndex(ValueLayout.JAVA_LONG, i, 0x3FF0000000000000L | (mix(seed, first + i) >>> 12));
        }
      }
      case INT32 -> {
        long i = 0;
        while (i < count) {
          long index = first + i;
          long word = mix(seed, index >>> 1);
          for (int lane = (int) (index & 1); lane < 2 && i < count; lane++, i++) {
            chunk.setAtIndex(ValueLayout.JAVA_INT, i, 1 + (int) ((word >>> (32 * lane + 2)) & 0x3FFFFFFF));
          }
        }
      }
      case FP32, FLOAT2, FLOAT4 ->
          new RandomFloats(seed).fill(chunk, first * (type.bytes() / 4), count * (type.bytes() / 4));
    }
  }

  /** Byte {@code lane} of {@code word} as an int8 in 1..127: its low seven bits, 0 read as 127. */
  private static byte int8(long word, int lane) {
    int value = (int) (word >>> (8 * lane)) & 0x7F;
    return (byte) (value == 0 ? 127 : value);
  }

  /** SplitMix64 of (seed, index): every output bit depends on every input bit. */
  public static long mix(long seed, long index) {
    long z = seed + index * 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
