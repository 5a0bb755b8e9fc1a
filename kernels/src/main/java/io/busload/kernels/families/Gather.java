package io.busload.kernels.families;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;

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
import io.busload.kernels.WarpSimulator;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * Indexed fp32 copies through an int32 permutation (src/main/cuda/gather.cu): gather
 * {@code out[i] = in[idx[i]]} and scatter {@code out[idx[i]] = in[i]}, with sorted indices (the identity: the
 * indirection with perfect coalescing) or random ones (about a sector per lane on the indexed side).
 * Size: the element count n, 32..2^31-1 (2^26 on a GPU: three 256 MiB buffers).
 */
public final class Gather extends VariantFamily<Gather.Variant, Gather.Case> {
  public static final String NAME = "gather";
  public static final int BLOCK = 256;
  /** Elements per thread, blockDim.x apart (BUSLOAD_GATHER_PER_THREAD in the CUDA source). */
  public static final int PER_THREAD = 4;
  /** Warps of the real index array the coalescing model averages over (fewer when n is smaller). */
  public static final int MODEL_WARPS = 1024;

  /**
   * A row of the family's table: gather ({@code out[i] = in[idx[i]]}) or scatter ({@code out[idx[i]] = in[i]}),
   * through random or sorted indices.
   */
  public record Variant(String kernel, String entryPoint, boolean gather, boolean random)
      implements VariantFamily.Kernel {
    public static final Variant GATHER_SORTED = new Variant("gather-sorted", "busload_gather_gather_f32", true, false);
    public static final Variant GATHER_RANDOM = new Variant("gather-random", "busload_gather_gather_f32", true, true);
    public static final Variant SCATTER_SORTED =
        new Variant("scatter-sorted", "busload_gather_scatter_f32", false, false);
    public static final Variant SCATTER_RANDOM =
        new Variant("scatter-random", "busload_gather_scatter_f32", false, true);
    public static final List<Variant> ALL = List.of(GATHER_SORTED, GATHER_RANDOM, SCATTER_SORTED, SCATTER_RANDOM);
  }

  public Gather() {
    super(NAME, Variant.ALL);
  }

  /** 2^26 on a GPU (768 MiB in all), 2^24 on a CPU; halved while the three buffers exceed the budget. */
  @Override
  public long defaultSize(KernelCase kernelCase, DeviceLimits limits) {
    return Families.fit(limits, 1L << 26, 1L << 24, 2, 1024, n -> 3 * n * Float.BYTES);
  }

  @Override
  protected Case program(Variant variant, long size) {
    return new Case(variant, Families.require("size", size, WarpSimulator.WARP, Integer.MAX_VALUE, 1));
  }

  /**
   * One variant at {@code n} elements. Buffers: 0 {@code in} (fp32), 1 {@code idx} (int32 permutation of
   * 0..n-1), 2 {@code out} (fp32).
   */
  public record Case(Variant variant, long n) implements Program {
    private static final int IN = 0;
    private static final int IDX = 1;
    private static final int OUT = 2;

    @Override
    public List<Buffer> buffers() {
      return List.of(new Buffer("in", ElementType.FP32, n, Buffer.Role.INPUT),
          new Buffer("idx", ElementType.INT32, n, Buffer.Role.INPUT),
          new Buffer("out", ElementType.FP32, n, Buffer.Role.OUTPUT));
    }

    /** idx[i]: i when sorted, a seeded random permutation otherwise. */
    public long index(long i) {
      return variant.random() ? new Permutation(n, Families.SEED + IDX).apply(i) : i;
    }

    @Override
    public void fill(int buffer, long first, MemorySegment chunk) {
      switch (buffer) {
        case IN -> Families.input(IN).fill(chunk, first, chunk.byteSize() / Float.BYTES);
        case IDX -> {
          long count = chunk.byteSize() / Integer.BYTES;
          for (long k = 0; k < count; k++) {
            chunk.setAtIndex(JAVA_INT, k, (int) index(first + k));
          }
        }
        default -> throw new IllegalArgumentException("buffer: " + buffer + " is not an input");
      }
    }

    /** idx must stay a permutation of 0..n-1 (scatter writes every out element once, gather reads in in range). */
    @Override
    public String fillHint(int buffer) {
      return buffer == IDX ? (variant.random() ? "permutation" : "iota") : "random";
    }

    @Override
    public List<Step> steps() {
      return List.of(new Step.Kernel(variant.entryPoint(), Dim3.blocksFor(n, (long) BLOCK * PER_THREAD),
          Dim3.of(BLOCK), 0, List.of(Arg.buf(IN), Arg.buf(IDX), Arg.buf(OUT), Arg.i64(n))));
    }

    /** Reads in and idx (8 bytes per element), writes out (4 bytes); no arithmetic. */
    @Override
    public Traffic traffic() {
      return new Traffic(n * (Float.BYTES + Integer.BYTES), n * Float.BYTES, 0);
    }

    /**
     * idx and the direct side are 32 consecutive elements (4 sectors). The indexed side (gather's load of in,
     * scatter's store to out) is the mean over the first {@link #MODEL_WARPS} warps of this very index array,
     * rounded: 4 for sorted, about 32 for random.
     */
    @Override
    public List<Coalescing> coalescing() {
      Coalescing idx = Families.warp("load idx", false, lane -> lane * Integer.BYTES, Integer.BYTES);
      Coalescing direct = Families.warp(variant.gather() ? "store out" : "load in", variant.gather(),
          lane -> lane * Float.BYTES, Float.BYTES);
      double[] mean = indexedSideMeans();
      Coalescing indexed = new Coalescing(variant.gather() ? "load in[idx]" : "store out[idx]", !variant.gather(),
          (int) Math.round(mean[0]), (int) Math.round(mean[1]), (long) WarpSimulator.WARP * Float.BYTES);
      return variant.gather() ? List.of(idx, indexed, direct) : List.of(idx, direct, indexed);
    }

    /** Mean sectors (slot 0) and lines (slot 1) per request of the indexed side over the first warps. */
    public double[] indexedSideMeans() {
      long warps = Math.min(MODEL_WARPS, n / WarpSimulator.WARP);
      long sectors = 0;
      long lines = 0;
      for (long w = 0; w < warps; w++) {
        long base = w * WarpSimulator.WARP;
        WarpSimulator.Request r = WarpSimulator.simulate(lane -> index(base + lane) * Float.BYTES, Float.BYTES);
        sectors += r.sectors();
        lines += r.lines();
      }
      return new double[] {(double) sectors / warps, (double) lines / warps};
    }

    /**
     * Bit for bit, against the host copies of in and idx: what was uploaded (a backend hands the check its inputs
     * as filled), because recomputing the Feistel permutation and the input for every element cost more host time
     * than reading them back.
     */
    @Override
    public Check check(List<MemorySegment> host) {
      MemorySegment in = host.get(IN);
      MemorySegment idx = host.get(IDX);
      MemorySegment out = host.get(OUT);
      return Check.inParts(n, (from, to, collector) -> {
        for (long i = from; i < to; i++) {
          long j = Integer.toUnsignedLong(idx.getAtIndex(JAVA_INT, i));
          long outIndex = variant.gather() ? i : j;
          if (j >= n) {
            collector.mismatch("idx[" + i + "]: " + j + " is outside 0.." + (n - 1) + " (the input changed)");
            continue;
          }
          float expected = in.getAtIndex(JAVA_FLOAT, variant.gather() ? j : i);
          float actual = out.getAtIndex(JAVA_FLOAT, outIndex);
          if (!Families.same(expected, actual)) {
            collector.mismatch(() -> "out[" + outIndex + "]: expected " + expected + ", got " + Families.describe(actual));
          }
        }
        collector.checked(to - from);
      });
    }

    /** Each thread walks its range of i, reading idx[i] from the buffer, as the kernel does. */
    @Override
    public void runOnCpu(List<MemorySegment> buffers, Parallel parallel) {
      MemorySegment in = buffers.get(IN);
      MemorySegment idx = buffers.get(IDX);
      MemorySegment out = buffers.get(OUT);
      boolean gather = variant.gather();
      parallel.forRange(n, (from, to) -> {
        for (long i = from; i < to; i++) {
          long j = Integer.toUnsignedLong(idx.getAtIndex(JAVA_INT, i));
          if (gather) {
            out.setAtIndex(JAVA_FLOAT, i, in.getAtIndex(JAVA_FLOAT, j));
          } else {
            out.setAtIndex(JAVA_FLOAT, j, in.getAtIndex(JAVA_FLOAT, i));
          }
        }
      });
    }
  }
}
