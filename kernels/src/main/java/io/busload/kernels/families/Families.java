package io.busload.kernels.families;

import io.busload.kernels.Buffer;
import io.busload.kernels.Coalescing;
import io.busload.kernels.DeviceLimits;
import io.busload.kernels.ElementType;
import io.busload.kernels.RandomFloats;
import io.busload.kernels.WarpSimulator;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.function.LongUnaryOperator;

/** What the families share: seeds, input generators, warp simulation, sizing and messages. */
final class Families {
  /** Seed of every input buffer; buffer {@code b} uses {@code SEED + b} so inputs differ from each other. */
  static final long SEED = 0x5EED_0003L;

  private Families() {}

  /** The buffers of a one-input, one-output family: 0 {@code in}, 1 {@code out}. */
  static List<Buffer> inAndOut(ElementType type, long inElements, long outElements) {
    return List.of(new Buffer("in", type, inElements, Buffer.Role.INPUT),
        new Buffer("out", type, outElements, Buffer.Role.OUTPUT));
  }

  /** The seeded random fp32 input of buffer {@code buffer}. */
  static RandomFloats input(int buffer) {
    return new RandomFloats(SEED + buffer);
  }

  /** Refuses a fill of any buffer but the family's input {@code input}: "buffer: 2 is not an input". */
  static void requireInput(int buffer, int input) {
    if (buffer != input) {
      throw new IllegalArgumentException("buffer: " + buffer + " is not an input");
    }
  }

  /** A chunk of the one random fp32 input {@code input}, starting at element {@code first}. */
  static void fillInput(int buffer, int input, long first, MemorySegment chunk) {
    requireInput(buffer, input);
    input(input).fill(chunk, first, chunk.byteSize() / Float.BYTES);
  }

  /** One global access of warp 0 (or the warp the family names), from its 32 lane byte addresses. */
  static Coalescing warp(String access, boolean store, LongUnaryOperator laneAddress, int accessBytes) {
    WarpSimulator.Request r = WarpSimulator.simulate(laneAddress, accessBytes);
    return new Coalescing(access, store, r.sectors(), r.lines(), r.requestedBytes());
  }

  /** Uniform in [1, 2) with all 52 fraction bits random: a pure function of (seed, index), never zero. */
  static double randomDouble(long seed, long index) {
    return Double.longBitsToDouble(0x3FF0000000000000L | (mix(seed + index * 0x9E3779B97F4A7C15L) >>> 12));
  }

  /** SplitMix64's finaliser: every output bit depends on every input bit. */
  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /**
   * The default size: {@code gpu} on a GPU, {@code cpu} on a CPU, divided by {@code shrink} while the buffers it
   * needs ({@code bytesAt}) exceed the device's default budget (half its memory, at most what is free).
   */
  static long fit(DeviceLimits limits, long gpu, long cpu, long shrink, long smallest, LongUnaryOperator bytesAt) {
    long size = limits.gpu() ? gpu : cpu;
    while (size / shrink >= smallest && bytesAt.applyAsLong(size) > limits.defaultBudgetBytes()) {
      size /= shrink;
    }
    return size;
  }

  /** {@code value} if it lies in {@code [min, max]} and is a multiple of {@code multiple}, else "field: ...". */
  static long require(String field, long value, long min, long max, long multiple) {
    if (value < min || value > max || value % multiple != 0) {
      throw new IllegalArgumentException(field + ": must be " + (multiple > 1 ? "a multiple of " + multiple + " " : "")
          + "in " + min + ".." + max + ", got " + value);
    }
    return value;
  }

  static String describe(float value) {
    return Float.floatToRawIntBits(value) == -1 ? "poison (never written)" : Float.toString(value);
  }

  static String describe(double value) {
    return Double.doubleToRawLongBits(value) == -1L ? "poison (never written)" : Double.toString(value);
  }

  /** Bit-for-bit equality, as copies and permutations must be. */
  static boolean same(float expected, float actual) {
    return Float.floatToRawIntBits(expected) == Float.floatToRawIntBits(actual);
  }
}
