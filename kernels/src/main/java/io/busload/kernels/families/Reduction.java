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
import io.busload.kernels.RandomFloats;
import io.busload.kernels.Step;
import io.busload.kernels.Traffic;
import io.busload.kernels.VariantFamily;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;

/**
 * fp32 sum (src/main/cuda/reduction.cu; issue 3, family 11), always two launches: a first kernel writes one
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
  /** Relative tolerance per doubling of n: fp32 sums lose about one rounding per level of the tree. */
  public static final double TOLERANCE_PER_LEVEL = 1e-5;

  /** A row of the family's table: the first kernel's name and entry point (the final kernel is shared). */
  public record Variant(String kernel, String entryPoint) implements VariantFamily.Kernel {
    public static final Variant INTERLEAVED = new Variant("reduction-interleaved", "busload_reduction_interleaved");
    public static final Variant STRIDED = new Variant("reduction-strided", "busload_reduction_strided");
    public static final Variant SEQUENTIAL = new Variant("reduction-sequential", "busload_reduction_sequential");
    public static final Variant SHUFFLE = new Variant("reduction-shuffle", "busload_reduction_shuffle");
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

  /** The relative tolerance at {@code n}: {@link #TOLERANCE_PER_LEVEL} times log2(n), at least one level. */
  public static double tolerance(long n) {
    return TOLERANCE_PER_LEVEL * Math.max(1, 64 - Long.numberOfLeadingZeros(n - 1));
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
      long perBlock = variant.equals(Variant.SHUFFLE) ? (long) BLOCK * SHUFFLE_PER_THREAD : BLOCK;
      long blocks = (n + perBlock - 1) / perBlock;
      return (int) (variant.equals(Variant.SHUFFLE) ? Math.min(blocks, SHUFFLE_MAX_BLOCKS) : blocks);
    }

    @Override
    public List<Buffer> buffers() {
      return List.of(new Buffer("in", ElementType.FP32, n, Buffer.Role.INPUT),
          new Buffer("partials", ElementType.FP32, blocks(), Buffer.Role.SCRATCH),
          new Buffer("out", ElementType.FP32, 1, Buffer.Role.OUTPUT));
    }

    @Override
    public void fill(int buffer, long first, MemorySegment chunk) {
      Families.fillInput(buffer, IN, first, chunk);
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

    /** The exact sum in double (inputs regenerated), relative tolerance {@link #tolerance}; NaN never passes. */
    @Override
    public Check check(List<MemorySegment> host) {
      RandomFloats in = Families.input(IN);
      double exact = 0.0;
      for (long i = 0; i < n; i++) {
        exact += in.get(i);
      }
      float actual = host.get(OUT).getAtIndex(JAVA_FLOAT, 0);
      Check.Collector collector = new Check.Collector();
      collector.checked(1);
      if (!(Math.abs(actual - exact) <= tolerance(n) * Math.abs(exact))) {
        collector.mismatch("out[0]: expected " + exact + " (relative tolerance " + tolerance(n) + "), got "
            + Families.describe(actual));
      }
      return collector.result();
    }

    /**
     * The kernels' arithmetic in their order, block by block over the threads (partials), then the final block:
     * the result should equal the GPU's bit for bit.
     */
    @Override
    public void runOnCpu(List<MemorySegment> buffers, Parallel parallel) {
      MemorySegment in = buffers.get(IN);
      MemorySegment partials = buffers.get(PARTIALS);
      int blocks = blocks();
      parallel.forRange(blocks, (from, to) -> {
        float[] shared = new float[BLOCK];
        for (long b = from; b < to; b++) {
          partials.setAtIndex(JAVA_FLOAT, b, variant.equals(Variant.SHUFFLE)
              ? shuffleBlock(in, b, blocks, shared) : treeBlock(in, b, shared));
        }
      });
      float[] acc = new float[BLOCK];
      for (int t = 0; t < BLOCK; t++) {
        float sum = 0.0f;
        for (long i = t; i < blocks; i += BLOCK) {
          sum += partials.getAtIndex(JAVA_FLOAT, i);
        }
        acc[t] = sum;
      }
      buffers.get(OUT).setAtIndex(JAVA_FLOAT, 0, blockSum(acc));
    }

    /** One block of the shared-memory variants: load 256 elements (0 past n), then the variant's tree. */
    private float treeBlock(MemorySegment in, long block, float[] s) {
      for (int t = 0; t < BLOCK; t++) {
        long i = block * BLOCK + t;
        s[t] = i < n ? in.getAtIndex(JAVA_FLOAT, i) : 0.0f;
      }
      if (variant.equals(Variant.SEQUENTIAL)) {
        for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
          for (int t = 0; t < stride; t++) {
            s[t] += s[t + stride];
          }
        }
      } else {
        // Interleaved (t % 2s == 0) and strided (index 2 s t) add the same pairs: s[k 2s] += s[k 2s + s].
        for (int stride = 1; stride < BLOCK; stride *= 2) {
          for (int t = 0; t < BLOCK; t += 2 * stride) {
            s[t] += s[t + stride];
          }
        }
      }
      return s[0];
    }

    /** One block of the shuffle variant: each thread's four accumulators over the grid-stride loop. */
    private float shuffleBlock(MemorySegment in, long block, int blocks, float[] v) {
      long stride = (long) blocks * BLOCK;
      for (int t = 0; t < BLOCK; t++) {
        long i = block * BLOCK + t;
        float a0 = 0.0f;
        float a1 = 0.0f;
        float a2 = 0.0f;
        float a3 = 0.0f;
        for (; i + 3 * stride < n; i += 4 * stride) {
          a0 += in.getAtIndex(JAVA_FLOAT, i);
          a1 += in.getAtIndex(JAVA_FLOAT, i + stride);
          a2 += in.getAtIndex(JAVA_FLOAT, i + 2 * stride);
          a3 += in.getAtIndex(JAVA_FLOAT, i + 3 * stride);
        }
        for (; i < n; i += stride) {
          a0 += in.getAtIndex(JAVA_FLOAT, i);
        }
        v[t] = (a0 + a1) + (a2 + a3);
      }
      return blockSum(v);
    }
  }

  /** busload_reduction_block_sum: xor butterflies per warp, one float per warp, then warp 0 again. */
  static float blockSum(float[] values) {
    int warps = BLOCK / 32;
    float[] perWarp = new float[32];
    for (int w = 0; w < warps; w++) {
      perWarp[w] = warpSum(Arrays.copyOfRange(values, w * 32, w * 32 + 32));
    }
    return warpSum(perWarp);
  }

  /** busload_reduction_warp_sum: after offsets 16, 8, 4, 2, 1 every lane holds the total; lane 0's is returned. */
  static float warpSum(float[] lanes) {
    float[] v = lanes.clone();
    for (int offset = 16; offset > 0; offset /= 2) {
      float[] next = new float[32];
      for (int lane = 0; lane < 32; lane++) {
        next[lane] = v[lane] + v[lane ^ offset];
      }
      v = next;
    }
    return v[0];
  }
}
