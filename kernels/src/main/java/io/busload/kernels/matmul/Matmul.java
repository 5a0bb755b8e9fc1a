package io.busload.kernels.matmul;

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
import io.busload.kernels.WarpSimulator;
import java.lang.foreign.MemorySegment;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongUnaryOperator;

/**
 * Square fp32 matmul {@code C = A x B} (src/main/cuda/matmul.cu; the MATMUL family). Size: the side
 * {@code n} of the three row-major matrices, a multiple of 32 (4096 on a GPU: 64 MiB per matrix, 192 MiB in all,
 * well above H100/H200 L2; 512 on a CPU).
 *
 * <p>Buffers: 0 {@code A} and 1 {@code B} (inputs, uniform in [1, 2)), 2 {@code C} (output). Every kernel takes
 * {@code (a, b, c, int n)}.
 */
public final class Matmul extends VariantFamily<Matmul.Variant, Matmul.Case> {
  public static final String NAME = "matmul";
  /** Side of the 2-D tile of the naive and coalesced launches ({@code BUSLOAD_MATMUL_TILE}). */
  public static final int TILE = 32;
  /** Outputs per thread of the row/column-per-thread kernels ({@code BUSLOAD_MATMUL_STRIP}). */
  public static final int STRIP = 32;
  /** Threads per block of the row/column-per-thread kernels. */
  public static final int STRIP_BLOCK = 256;
  /** Largest side: three 32768^2 fp32 matrices are 12 GiB, and the kernels' int row and column stay far below 2^31. */
  public static final long MAX_N = 32_768;
  static final long SEED = 0x3A7A_0003L;
  static final int A = 0;
  static final int B = 1;
  static final int C = 2;

  /**
   * The kernels, in the order a suite runs them: the reference last, after the kernels it judges. An enum, since
   * each variant launches its own geometry.
   */
  public enum Variant implements VariantFamily.Kernel {
    /**
     * Thread x on rows, block (32, 32): the uncoalesced starting point. Seeds: about 1.3% of cuBLAS; an H200 at
     * n = 4096 (first run, a throwaway harness on this commit's code): 276 ms, 1.0% of cuBLAS's 2.68 ms.
     */
    NAIVE("matmul-naive", "busload_matmul_naive"),
    /** The remap, 1-D block of 1024 with the fast index on columns. Seeds: about 8.5%; that H200: 23.2 ms, 11.6%. */
    COALESCED("matmul-coalesced", "busload_matmul_coalesced"),
    /** gpuflight's row-per-thread, each thread a 32-column strip of its row: lanes a row apart (H200: 282 ms). */
    ROW_PER_THREAD("matmul-row-per-thread", "busload_matmul_row_per_thread"),
    /** gpuflight's column-per-thread, each thread a 32-row strip of its column: lanes along a row (H200: 46.1 ms). */
    COL_PER_THREAD("matmul-col-per-thread", "busload_matmul_col_per_thread"),
    /** cuBLAS SGEMM ({@link Step.Sgemm}): the reference the others are a percentage of. */
    CUBLAS("matmul-cublas", null);

    private final String kernel;
    private final String entryPoint;

    Variant(String kernel, String entryPoint) {
      this.kernel = kernel;
      this.entryPoint = entryPoint;
    }

    @Override
    public String kernel() {
      return kernel;
    }

    /** Null for cuBLAS. */
    @Override
    public String entryPoint() {
      return entryPoint;
    }

    /** True when a warp's lanes hold consecutive rows (and one column): A loads and C stores leap n floats. */
    public boolean lanesOnRows() {
      return this == NAIVE || this == ROW_PER_THREAD;
    }
  }

  public Matmul() {
    super(NAME, List.of(Variant.values()));
  }

  /**
   * 4096 on a GPU, 512 on a CPU (a naive Java matmul of 2 x 512^3 FLOPs takes about a second on a few cores),
   * halved while the three matrices exceed the device's default budget.
   */
  @Override
  public long defaultSize(KernelCase kernelCase, DeviceLimits limits) {
    long n = limits.gpu() ? 4096 : 512;
    while (n / 2 >= TILE && bytes(n) > limits.defaultBudgetBytes()) {
      n /= 2;
    }
    return n;
  }

  @Override
  protected Case program(Variant variant, long size) {
    if (size < TILE || size > MAX_N || size % TILE != 0) {
      throw new IllegalArgumentException("size: must be a multiple of " + TILE + " in " + TILE + ".." + MAX_N
          + ", got " + size);
    }
    return new Case(variant, (int) size);
  }

  /** Bytes of A, B and C at side {@code n}. */
  static long bytes(long n) {
    return 3 * n * n * Float.BYTES;
  }

  /** The seeded input of buffer {@code A} or {@code B}: uniform in [1, 2), never zero, never the poison. */
  static RandomFloats input(int buffer) {
    return new RandomFloats(SEED + buffer);
  }

  /** One variant at side {@code n}. */
  public record Case(Variant variant, int n) implements Program {

    @Override
    public List<Buffer> buffers() {
      long elements = (long) n * n;
      return List.of(new Buffer("A", ElementType.FP32, elements, Buffer.Role.INPUT),
          new Buffer("B", ElementType.FP32, elements, Buffer.Role.INPUT),
          new Buffer("C", ElementType.FP32, elements, Buffer.Role.OUTPUT));
    }

    @Override
    public void fill(int buffer, long first, MemorySegment chunk) {
      if (buffer != A && buffer != B) {
        throw new IllegalArgumentException("buffer: " + buffer + " is not an input of " + variant.kernel());
      }
      input(buffer).fill(chunk, first, chunk.byteSize() / Float.BYTES);
    }

    @Override
    public List<Step> steps() {
      List<Arg> args = List.of(Arg.buf(A), Arg.buf(B), Arg.buf(C), Arg.i32(n));
      int tiles = n / TILE;
      return List.of(switch (variant) {
        case NAIVE -> new Step.Kernel(variant.entryPoint(), Dim3.of(tiles, tiles), Dim3.of(TILE, TILE), 0, args);
        case COALESCED -> new Step.Kernel(variant.entryPoint(), Dim3.of(tiles, tiles), Dim3.of(TILE * TILE), 0, args);
        case ROW_PER_THREAD, COL_PER_THREAD -> new Step.Kernel(variant.entryPoint(),
            Dim3.of(Dim3.blocksFor(n, STRIP_BLOCK).x(), n / STRIP), Dim3.of(STRIP_BLOCK), 0, args);
        case CUBLAS -> new Step.Sgemm(n, n, n, A, B, C);
      });
    }

    /** The minimum any matmul must do: read A and B once, write C once, 2 n^3 FLOPs (a multiply and an add each). */
    @Override
    public Traffic traffic() {
      long matrix = (long) n * n * Float.BYTES;
      return new Traffic(2 * matrix, matrix, 2L * n * n * n);
    }

    /**
     * Warp 0 of block 0 at k = 0, matrices at 256-byte aligned addresses as cuMemAlloc returns them. Lanes on rows
     * (naive, row-per-thread): A loads and C stores n * 4 bytes apart, 32 sectors per request (for n of 8 and up),
     * B a broadcast of one address, 1 sector. Lanes on columns (coalesced, column-per-thread): A a broadcast, B
     * loads and C stores 4 sectors. cuBLAS: empty, its access pattern is not ours to model. Requested bytes count
     * distinct addresses, so a broadcast's one sector carries 4 useful bytes of 32. ncu on an H200 at n = 512
     * agreed exactly: 16.5 sectors per load request for lanes on rows ((32 + 1) / 2), 2.5 for lanes on columns
     * ((1 + 4) / 2), 32 and 4 per store request.
     */
    @Override
    public List<Coalescing> coalescing() {
      if (variant == Variant.CUBLAS) {
        return List.of();
      }
      long rowBytes = (long) n * Float.BYTES;
      LongUnaryOperator alongColumn = lane -> lane * rowBytes; // consecutive rows, one column
      LongUnaryOperator alongRow = lane -> lane * Float.BYTES; // one row, consecutive columns
      LongUnaryOperator broadcast = lane -> 0;
      boolean rows = variant.lanesOnRows();
      return List.of(
          warp(rows ? "load A (lanes a row apart)" : "load A (broadcast)", false, rows ? alongColumn : broadcast),
          warp(rows ? "load B (broadcast)" : "load B (lanes along a row)", false, rows ? broadcast : alongRow),
          warp(rows ? "store C (lanes a row apart)" : "store C (lanes along a row)", true, rows ? alongColumn : alongRow));
    }

    @Override
    public Check check(List<MemorySegment> host) {
      return MatmulReference.check(host.get(A), host.get(B), host.get(C), n);
    }

    /**
     * The naive pattern in Java, C in fp32 accumulated in k order like the kernels: threads split the rows (naive,
     * coalesced and row-per-thread; a CPU thread has no warp to remap) or the columns (column-per-thread).
     */
    @Override
    public void runOnCpu(List<MemorySegment> buffers, Parallel parallel) {
      if (variant == Variant.CUBLAS) {
        throw new IllegalStateException(variant.kernel() + ": cuBLAS runs on CUDA devices only (see skipReason)");
      }
      MemorySegment a = buffers.get(A);
      MemorySegment b = buffers.get(B);
      MemorySegment c = buffers.get(C);
      switch (variant) {
        case NAIVE, COALESCED, ROW_PER_THREAD -> parallel.forRange(n, (from, to) -> {
          for (long row = from; row < to; row++) {
            for (long col = 0; col < n; col++) {
              c.setAtIndex(JAVA_FLOAT, row * n + col, dot(a, b, n, row, col));
            }
          }
        });
        case COL_PER_THREAD -> parallel.forRange(n, (from, to) -> {
          for (long col = from; col < to; col++) {
            for (long row = 0; row < n; row++) {
              c.setAtIndex(JAVA_FLOAT, row * n + col, dot(a, b, n, row, col));
            }
          }
        });
      }
    }

    /** cuBLAS has no CPU counterpart: skipped on a CPU, not failed; otherwise the default memory check. */
    @Override
    public Optional<String> skipReason(DeviceLimits limits) {
      if (variant == Variant.CUBLAS && !limits.gpu()) {
        return Optional.of("kernel: " + variant.kernel() + " needs cuBLAS on a CUDA device");
      }
      return Program.super.skipReason(limits);
    }

    private static float dot(MemorySegment a, MemorySegment b, long n, long row, long col) {
      float acc = 0;
      for (long k = 0; k < n; k++) {
        acc += a.getAtIndex(JAVA_FLOAT, row * n + k) * b.getAtIndex(JAVA_FLOAT, k * n + col);
      }
      return acc;
    }

    /** One request of warp 0; requested bytes are the distinct bytes its lanes touch (a broadcast wants 4). */
    private static Coalescing warp(String access, boolean store, LongUnaryOperator laneAddress) {
      WarpSimulator.Request request = WarpSimulator.simulate(laneAddress, Float.BYTES);
      Set<Long> distinct = new HashSet<>();
      for (int lane = 0; lane < WarpSimulator.WARP; lane++) {
        distinct.add(laneAddress.applyAsLong(lane));
      }
      return new Coalescing(access, store, request.sectors(), request.lines(), (long) distinct.size() * Float.BYTES);
    }
  }
}
