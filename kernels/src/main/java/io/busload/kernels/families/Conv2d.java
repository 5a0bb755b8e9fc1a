package io.busload.kernels.families;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;

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
import java.util.ArrayList;
import java.util.List;

/**
 * The seed's 3x3 fp64 convolution (src/main/cuda/conv2d.cu;
 * seeds/conv2d-global-mem-coalesce.md): filter -1 everywhere and 8 in the centre, taps outside the image
 * skipped. Naive puts threadIdx.x on rows (lanes a row apart: a sector per lane), coalesced on columns (32
 * consecutive doubles: 8 sectors). Size: the side {@code n} of the square image (8192 on a GPU: 512 MiB each
 * for in and out).
 */
public final class Conv2d extends VariantFamily<Conv2d.Variant, Conv2d.Case> {
  public static final String NAME = "conv2d";
  public static final int BLOCK_X = 32;
  public static final int BLOCK_Y = 8;
  /** Largest side: keeps the grid's y dimension (n / 8) under CUDA's 65535. */
  public static final long MAX_N = 65_535L * BLOCK_Y;
  /** Relative to the sum of |tap| of an output: room for a different rounding order, far below any wrong tap. */
  public static final double TOLERANCE = 1e-12;

  /** A row of the family's table: threadIdx.x on rows (naive) or on columns (coalesced). */
  public record Variant(String kernel, String entryPoint) implements VariantFamily.Kernel {
    public static final Variant NAIVE = new Variant("conv2d-naive", "busload_conv2d_naive");
    public static final Variant COALESCED = new Variant("conv2d-coalesced", "busload_conv2d_coalesced");
    public static final List<Variant> ALL = List.of(NAIVE, COALESCED);
  }

  public Conv2d() {
    super(NAME, Variant.ALL);
  }

  /** 8192 on a GPU (1 GiB in all), 4096 on a CPU; halved while in + out exceed the budget. */
  @Override
  public long defaultSize(KernelCase kernelCase, DeviceLimits limits) {
    return Families.fit(limits, 8192, 4096, 2, 64, n -> 2 * n * n * Double.BYTES);
  }

  @Override
  protected Case program(Variant variant, long size) {
    return new Case(variant, Families.require("size", size, 3, MAX_N, 1));
  }

  /** The filter weight of tap (dr, dc), dr and dc in -1..1. */
  static double weight(int dr, int dc) {
    return dr == 0 && dc == 0 ? 8.0 : -1.0;
  }

  static double input(long index) {
    return Families.randomDouble(Families.SEED, index);
  }

  /** Taps inside the image over all outputs: (3n - 2)^2 (each axis: 3 per output but 2 at either edge). */
  public static long taps(long n) {
    return (3 * n - 2) * (3 * n - 2);
  }

  /** One variant at side {@code n}. Buffers: 0 {@code in}, 1 {@code out}, n x n row-major fp64. */
  public record Case(Variant variant, long n) implements Program {
    @Override
    public List<Buffer> buffers() {
      return Families.inAndOut(ElementType.FP64, n * n, n * n);
    }

    @Override
    public void fill(int buffer, long first, MemorySegment chunk) {
      Families.requireInput(buffer, 0);
      long count = chunk.byteSize() / Double.BYTES;
      for (long k = 0; k < count; k++) {
        chunk.setAtIndex(JAVA_DOUBLE, k, input(first + k));
      }
    }

    /** Block (32, 8); grid x covers the axis threadIdx.x walks (rows for naive, columns for coalesced). */
    @Override
    public List<Step> steps() {
      Dim3 grid = Dim3.of((int) ((n + BLOCK_X - 1) / BLOCK_X), (int) ((n + BLOCK_Y - 1) / BLOCK_Y));
      return List.of(new Step.Kernel(variant.entryPoint(), grid, Dim3.of(BLOCK_X, BLOCK_Y), 0,
          List.of(Arg.buf(0), Arg.buf(1), Arg.i32((int) n))));
    }

    /** Each input read once and each output written once (useful bytes); one FMA (2 FLOPs) per tap. */
    @Override
    public Traffic traffic() {
      long bytes = n * n * Double.BYTES;
      return new Traffic(bytes, bytes, 2 * taps(n));
    }

    /**
     * An interior warp, so all 32 lanes have all 9 taps: warp 0 of block (1, 1). Naive: lanes are rows 32..63 of
     * column 8, a row (n * 8 bytes) apart: 32 sectors per load and store. Coalesced: lanes are columns 32..63 of
     * row 8: 8 sectors for the centre column, 9 for the taps one column left or right (they straddle a sector).
     */
    @Override
    public List<Coalescing> coalescing() {
      List<Coalescing> model = new ArrayList<>();
      for (int dr = -1; dr <= 1; dr++) {
        for (int dc = -1; dc <= 1; dc++) {
          int r = dr;
          int c = dc;
          model.add(Families.warp("load in[r" + offset(dr) + "][c" + offset(dc) + "]", false,
              lane -> address(lane, r, c), Double.BYTES));
        }
      }
      model.add(Families.warp("store out[r][c]", true, lane -> address(lane, 0, 0), Double.BYTES));
      return model;
    }

    private long address(long lane, int dr, int dc) {
      long r = variant.equals(Variant.NAIVE) ? BLOCK_X + lane : BLOCK_Y;
      long c = variant.equals(Variant.NAIVE) ? BLOCK_Y : BLOCK_X + lane;
      return ((r + dr) * n + c + dc) * Double.BYTES;
    }

    private static String offset(int d) {
      return d == 0 ? "" : d > 0 ? "+" + d : Integer.toString(d);
    }

    /**
     * Relative to the sum of |tap|: {@code |got - expected| <= TOLERANCE * sum |w * a|}; NaN never passes. The
     * input is first compared with its seed bit for bit (a kernel must not write it; an upload must not change
     * it), then the taps read the host copy, which is faster than regenerating nine values per output.
     */
    @Override
    public Check check(List<MemorySegment> host) {
      MemorySegment in = host.get(0);
      MemorySegment out = host.get(1);
      // Rows in parallel parts, one collector each (Check.merge keeps the first mismatches in order): serially,
      // 8192^2 outputs x 9 taps took seconds of the suite's 90 s budget on an H100 host.
      int parts = (int) Math.max(1, Math.min(Runtime.getRuntime().availableProcessors(), n / 64));
      List<Check> checks = java.util.stream.IntStream.range(0, parts).parallel().mapToObj(p -> {
        long fromRow = n * p / parts;
        long toRow = n * (p + 1) / parts;
        Check.Collector collector = new Check.Collector();
        for (long i = fromRow * n; i < toRow * n; i++) {
          double expected = input(i);
          double actual = in.getAtIndex(JAVA_DOUBLE, i);
          if (Double.doubleToRawLongBits(expected) != Double.doubleToRawLongBits(actual)) {
            collector.mismatch("in[" + i / n + "][" + i % n + "]: expected " + expected + ", got "
                + Families.describe(actual));
          }
        }
        for (long r = fromRow; r < toRow; r++) {
          for (long c = 0; c < n; c++) {
            double expected = stencil(in, r, c, false);
            double actual = out.getAtIndex(JAVA_DOUBLE, r * n + c);
            double error = Math.abs(actual - expected);
            // The same fma order usually gives the same bits: the taps' sizes are read again only when it did not.
            if (!(error == 0.0 || error <= TOLERANCE * stencil(in, r, c, true))) {
              collector.mismatch("out[" + r + "][" + c + "]: expected " + expected + ", got "
                  + Families.describe(actual));
            }
          }
        }
        collector.checked(2 * (toRow - fromRow) * n);
        return collector.result();
      }).toList();
      return Check.merge(checks);
    }

    /** Naive walks down columns (a thread's range of columns, rows inner), coalesced along rows. */
    @Override
    public void runOnCpu(List<MemorySegment> buffers, Parallel parallel) {
      MemorySegment in = buffers.get(0);
      MemorySegment out = buffers.get(1);
      boolean naive = variant.equals(Variant.NAIVE);
      parallel.forRange(n, (from, to) -> {
        for (long outer = from; outer < to; outer++) {
          for (long inner = 0; inner < n; inner++) {
            long r = naive ? inner : outer;
            long c = naive ? outer : inner;
            out.setAtIndex(JAVA_DOUBLE, r * n + c, stencil(in, r, c, false));
          }
        }
      });
    }

    /**
     * The 3x3 stencil at ({@code r}, {@code c}) over the neighbours inside the grid: the weighted sum in the order
     * the check expects, or with {@code magnitude} the sum of each term's size, the scale its rounding error has.
     */
    private double stencil(MemorySegment in, long r, long c, boolean magnitude) {
      double acc = 0.0;
      for (int dr = -1; dr <= 1; dr++) {
        for (int dc = -1; dc <= 1; dc++) {
          long rr = r + dr;
          long cc = c + dc;
          if (rr >= 0 && rr < n && cc >= 0 && cc < n) {
            double a = in.getAtIndex(JAVA_DOUBLE, rr * n + cc);
            acc = magnitude ? acc + Math.abs(a * weight(dr, dc)) : Math.fma(a, weight(dr, dc), acc);
          }
        }
      }
      return acc;
    }
  }
}
