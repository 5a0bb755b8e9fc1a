package io.busload.kernels.families;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import io.busload.kernels.Arg;
import io.busload.kernels.Buffer;
import io.busload.kernels.Check;
import io.busload.kernels.Coalescing;
import io.busload.kernels.DeviceLimits;
import io.busload.kernels.Dim3;
import io.busload.kernels.ElementType;
import io.busload.kernels.KernelCase;
import io.busload.kernels.Parallel;
import io.busload.kernels.Program;
import io.busload.kernels.Step;
import io.busload.kernels.Traffic;
import io.busload.kernels.VariantFamily;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;

/**
 * fp32 sum (src/main/cuda/reduction.cu), always two launches: a first kernel writes one
 * partial sum per block, {@code busload_reduction_final} sums them into {@code out[0]}. First kernels:
 * interleaved (tid % 2s: divergent), strided (index 2 s tid: bank conflicts), sequential (tid < s) and shuffle
 * (grid-stride loop, warp shuffles). Every global load is coalesced; what differs is the work after it.
 * Size: the element count n (2^27 on a GPU: 512 MiB).
 */
public final class Reduction extends VariantFamily<Reduction.Variant, Reduction.Case> {
  public static final String NAME = "reduction";
  public static final int BLOCK = 256;
  public static final String FINAL_ENTRY_POINT = "busload_reduction_final";
  /** Largest grid of the shuffle variant; its threads loop over the rest. */
  public static final int SHUFFLE_MAX_BLOCKS = 1024;
  /** Elements per thread the shuffle variant's grid is sized for (its four accumulators). */
  public static final int SHUFFLE_PER_THREAD = 4;
  /**
   * The order in which a first kernel adds its block's elements (the final kernel is shared). Interleaved and
   * strided add the same pairs (s[k 2s] += s[k 2s + s]); sequential halves (s[t] += s[t + stride]); shuffle
   * loops over the grid with four accumulators, then warp shuffles.
   */
  public enum Order {
    PAIRS,
    HALVING,
    SHUFFLE
  }

  /** A row of the family's table: the first kernel's name, entry point and addition order. */
  public record Variant(String kernel, String entryPoint, Order order) implements VariantFamily.Kernel {
    public static final Variant INTERLEAVED = new Variant("reduction-interleaved", "busload_reduction_interleaved",
        Order.PAIRS);
    public static final Variant STRIDED = new Variant("reduction-strided", "busload_reduction_strided", Order.PAIRS);
    public static final Variant SEQUENTIAL = new Variant("reduction-sequential", "busload_reduction_sequential",
        Order.HALVING);
    public static final Variant SHUFFLE = new Variant("reduction-shuffle", "busload_reduction_shuffle", Order.SHUFFLE);
    public static final List<Variant> ALL = List.of(INTERLEAVED, STRIDED, SEQUENTIAL, SHUFFLE);
  }

  public Reduction() {
    super(NAME, Variant.ALL);
  }

  /** 2^27 on a GPU (512 MiB), 2^25 on a CPU; halved while the input exceeds the budget. */
  @Override
  public long defaultSize(KernelCase kernelCase, DeviceLimits limits) {
    return Families.fit(limits, 1L << 27, 1L << 25, 2, 1L << 16, n -> n * Float.BYTES);
  }

  @Override
  protected Case program(Variant variant, long size) {
    return new Case(variant, Families.require("size", size, 1, 1L << 38, 1));
  }

  /**
   * Element {@code i} of the input: a random sign times a magnitude in [1, 2) with 8 fraction bits, so the exact
   * sum is an integer count of 2^-8 (a long) and every partial sum below 2^16 in magnitude is exact in fp32. Mixed
   * signs keep partial sums small (a random walk), so the bound {@link Case#check} derives stays near zero and a
   * dropped block (a sum of about 24 in magnitude) fails; on inputs all in [1, 2) a relative tolerance would let
   * about 36,000 dropped elements pass.
   */
  public static float input(long i) {
    long r = Families.mix(Families.SEED + i * 0x9E3779B97F4A7C15L);
    return Float.intBitsToFloat((int) (r >>> 63) << 31 | 0x3F800000 | (int) (r >>> 8 & 0xFF) << 15);
  }

  /**
   * One variant at {@code n} elements. Buffers: 0 {@code in}, 1 {@code partials} (one per first-kernel block,
   * scratch), 2 {@code out} (one float).
   */
  public record Case(Variant variant, long n) implements Program {
    private static final int IN = 0;
    private static final int PARTIALS = 1;
    private static final int OUT = 2;

    /** Blocks of the first kernel, hence partial sums. */
    public int blocks() {
      long perBlock = variant.order() == Order.SHUFFLE ? (long) BLOCK * SHUFFLE_PER_THREAD : BLOCK;
      long blocks = (n + perBlock - 1) / perBlock;
      return (int) (variant.order() == Order.SHUFFLE ? Math.min(blocks, SHUFFLE_MAX_BLOCKS) : blocks);
    }

    @Override
    public List<Buffer> buffers() {
      return List.of(new Buffer("in", ElementType.FP32, n, Buffer.Role.INPUT),
          new Buffer("partials", ElementType.FP32, blocks(), Buffer.Role.SCRATCH),
          new Buffer("out", ElementType.FP32, 1, Buffer.Role.OUTPUT));
    }

    @Override
    public void fill(int buffer, long first, MemorySegment chunk) {
      Families.requireInput(buffer, IN);
      long count = chunk.byteSize() / Float.BYTES;
      for (long k = 0; k < count; k++) {
        chunk.setAtIndex(JAVA_FLOAT, k, input(first + k));
      }
    }

    @Override
    public List<Step> steps() {
      return List.of(
          new Step.Kernel(variant.entryPoint(), Dim3.of(blocks()), Dim3.of(BLOCK), 0,
              List.of(Arg.buf(IN), Arg.buf(PARTIALS), Arg.i64(n))),
          new Step.Kernel(FINAL_ENTRY_POINT, Dim3.of(1), Dim3.of(BLOCK), 0,
              List.of(Arg.buf(PARTIALS), Arg.buf(OUT), Arg.i32(blocks()))));
    }

    /** Useful: n floats read, one written, n - 1 additions (the partials are the method's overhead). */
    @Override
    public Traffic traffic() {
      return new Traffic(n * Float.BYTES, Float.BYTES, n - 1);
    }

    /** The partial sums: one float per first-kernel block, written once and read once by the final kernel. */
    @Override
    public Traffic overhead() {
      long partials = (long) blocks() * Float.BYTES;
      return new Traffic(partials, partials, 0);
    }

    /**
     * Warp 0's load of in and the final kernel's load of partials: 32 consecutive floats (4 sectors). The
     * partial and the result are stored by thread 0 alone: 1 sector, 4 bytes requested.
     */
    @Override
    public List<Coalescing> coalescing() {
      return List.of(
          Families.warp("load in", false, lane -> lane * Float.BYTES, Float.BYTES),
          new Coalescing("store partials", true, 1, 1, Float.BYTES),
          Families.warp("load partials", false, lane -> lane * Float.BYTES, Float.BYTES),
          new Coalescing("store out", true, 1, 1, Float.BYTES));
    }

    /**
     * The exact sum (a long count of 2^-8, inputs regenerated) against a bound derived from the summation: the
     * kernels' order of additions is replayed in fp32 on the inputs and the magnitude of every addition's rounding
     * error, {@code |fl(a + b) - (a + b)|} (exact in double), is summed. The device's result differs from the exact
     * sum by at most that (each rounding error is carried unchanged to the end), and by nothing where every partial
     * stays exact, so one dropped block or element fails unless its elements sum to exactly zero. NaN never passes.
     */
    @Override
    public Check check(List<MemorySegment> host) {
      Replay replay = replay(null);
      double exact = replay.exactUnits() / 256.0;
      float actual = host.get(OUT).getAtIndex(JAVA_FLOAT, 0);
      Check.Collector collector = new Check.Collector();
      collector.checked(1);
      if (!(Math.abs(actual - exact) <= replay.bound())) {
        collector.mismatch("out[0]: expected " + exact + " (+-" + replay.bound() + ", the rounding errors of the "
            + variant.order().name().toLowerCase(java.util.Locale.ROOT) + " order on these inputs), got "
            + Families.describe(actual));
      }
      return collector.result();
    }

    /**
     * The kernels' arithmetic in their order, block by block over the threads (partials), then the final block:
     * the result equals the GPU's bit for bit.
     */
    @Override
    public void runOnCpu(List<MemorySegment> buffers, Parallel parallel) {
      MemorySegment in = buffers.get(IN);
      MemorySegment partials = buffers.get(PARTIALS);
      parallel.forRange(blocks(), (from, to) -> {
        Rounding rounding = new Rounding();
        for (long b = from; b < to; b++) {
          partials.setAtIndex(JAVA_FLOAT, b, firstKernel(LongToFloat.of(in), b, rounding));
        }
      });
      buffers.get(OUT).setAtIndex(JAVA_FLOAT, 0, finalKernel(partials, new Rounding()));
    }

    /**
     * The sum the kernels compute from the regenerated inputs, with its rounding errors summed; {@code dropped}
     * (for mutation tests) is a block whose partial is taken as zero, or null.
     */
    Replay replay(Long dropped) {
      int blocks = blocks();
      float[] partials = new float[blocks];
      int parts = Math.max(1, Math.min(blocks, 4 * Runtime.getRuntime().availableProcessors()));
      // One pass over the regenerated inputs: each element read is also added, exactly, to the reference.
      Rounding first = IntStream.range(0, parts).parallel().mapToObj(p -> {
        Rounding rounding = new Rounding();
        LongToFloat in = i -> {
          float x = input(i);
          rounding.exactUnits += (long) (x * 256.0f);
          return x;
        };
        for (long b = (long) blocks * p / parts; b < (long) blocks * (p + 1) / parts; b++) {
          float partial = firstKernel(in, b, rounding);
          partials[(int) b] = dropped != null && dropped == b ? 0.0f : partial;
        }
        return rounding;
      }).reduce(new Rounding(), Rounding::plus);
      Rounding last = new Rounding();
      float sum = finalKernel(MemorySegment.ofArray(partials), last);
      return new Replay(sum, first.error + last.error, first.exactUnits);
    }

    /** Block {@code block}'s partial sum, as the variant's first kernel adds it. */
    private float firstKernel(LongToFloat in, long block, Rounding rounding) {
      float[] s = new float[BLOCK];
      return variant.order() == Order.SHUFFLE ? shuffleBlock(in, block, blocks(), s, rounding)
          : treeBlock(in, block, s, rounding);
    }

    /** What busload_reduction_final makes of {@code partials} (for mutants that change a partial). */
    float finalSum(MemorySegment partials) {
      return finalKernel(partials, new Rounding());
    }

    /** busload_reduction_final: thread t adds partials t, t + 256, ..., then the block sum. */
    private float finalKernel(MemorySegment partials, Rounding rounding) {
      int blocks = blocks();
      float[] acc = new float[BLOCK];
      for (int t = 0; t < BLOCK; t++) {
        float sum = 0.0f;
        for (long i = t; i < blocks; i += BLOCK) {
          sum = rounding.add(sum, partials.getAtIndex(JAVA_FLOAT, i));
        }
        acc[t] = sum;
      }
      return blockSum(acc, rounding);
    }

    /** One block of the shared-memory variants: load 256 elements (0 past n), then the variant's tree. */
    private float treeBlock(LongToFloat in, long block, float[] s, Rounding r) {
      for (int t = 0; t < BLOCK; t++) {
        long i = block * BLOCK + t;
        s[t] = i < n ? in.get(i) : 0.0f;
      }
      if (variant.order() == Order.HALVING) {
        for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
          for (int t = 0; t < stride; t++) {
            s[t] = r.add(s[t], s[t + stride]);
          }
        }
      } else {
        for (int stride = 1; stride < BLOCK; stride *= 2) {
          for (int t = 0; t < BLOCK; t += 2 * stride) {
            s[t] = r.add(s[t], s[t + stride]);
          }
        }
      }
      return s[0];
    }

    /** One block of the shuffle variant: each thread's four accumulators over the grid-stride loop. */
    private float shuffleBlock(LongToFloat in, long block, int blocks, float[] v, Rounding r) {
      long stride = (long) blocks * BLOCK;
      for (int t = 0; t < BLOCK; t++) {
        long i = block * BLOCK + t;
        float a0 = 0.0f;
        float a1 = 0.0f;
        float a2 = 0.0f;
        float a3 = 0.0f;
        for (; i + 3 * stride < n; i += 4 * stride) {
          a0 = r.add(a0, in.get(i));
          a1 = r.add(a1, in.get(i + stride));
          a2 = r.add(a2, in.get(i + 2 * stride));
          a3 = r.add(a3, in.get(i + 3 * stride));
        }
        for (; i < n; i += stride) {
          a0 = r.add(a0, in.get(i));
        }
        v[t] = r.add(r.add(a0, a1), r.add(a2, a3));
      }
      return blockSum(v, r);
    }
  }

  /**
   * A replayed sum, the sum of the magnitudes of its additions' rounding errors, and the exact sum of the inputs in
   * units of 2^-8.
   */
  record Replay(float sum, double bound, long exactUnits) {}

  /** An input element by index: a device buffer or the regenerated input. */
  @FunctionalInterface
  private interface LongToFloat {
    float get(long index);

    static LongToFloat of(MemorySegment segment) {
      return i -> segment.getAtIndex(JAVA_FLOAT, i);
    }
  }

  /** fp32 additions that remember how far they rounded: {@code |fl(a + b) - (a + b)|}, exact in double. */
  static final class Rounding {
    double error;
    /** The inputs read so far, summed exactly (units of 2^-8), where the caller counts them. */
    long exactUnits;

    Rounding plus(Rounding other) {
      Rounding sum = new Rounding();
      sum.error = error + other.error;
      sum.exactUnits = exactUnits + other.exactUnits;
      return sum;
    }

    float add(float a, float b) {
      float sum = a + b;
      error += Math.abs((double) sum - ((double) a + (double) b));
      return sum;
    }
  }

  /** busload_reduction_block_sum: xor butterflies per warp, one float per warp, then warp 0 again. */
  static float blockSum(float[] values) {
    return blockSum(values, new Rounding());
  }

  static float blockSum(float[] values, Rounding rounding) {
    int warps = BLOCK / 32;
    float[] perWarp = new float[32];
    for (int w = 0; w < warps; w++) {
      perWarp[w] = warpSum(Arrays.copyOfRange(values, w * 32, w * 32 + 32), rounding);
    }
    return warpSum(perWarp, rounding);
  }

  static float warpSum(float[] lanes) {
    return warpSum(lanes, new Rounding());
  }

  /**
   * busload_reduction_warp_sum: after xor offsets 16, 8, 4, 2, 1 lane 0 holds the total. Lane l < offset holds
   * v[l] + v[l + offset] (addition commutes), so lane 0's value is a halving tree of 31 additions, bit for bit.
   */
  static float warpSum(float[] lanes, Rounding rounding) {
    float[] v = lanes.clone();
    for (int offset = 16; offset > 0; offset /= 2) {
      for (int lane = 0; lane < offset; lane++) {
        v[lane] = rounding.add(v[lane], v[lane + offset]);
      }
    }
    return v[0];
  }
}
