package io.busload.kernels.families;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import io.busload.kernels.Buffer;
import io.busload.kernels.Catalog;
import io.busload.kernels.Check;
import io.busload.kernels.Coalescing;
import io.busload.kernels.DeviceLimits;
import io.busload.kernels.KernelCase;
import io.busload.kernels.Parallel;
import io.busload.kernels.Poison;
import io.busload.kernels.Program;
import io.busload.kernels.Step;
import io.busload.kernels.StridedCopy;
import io.busload.kernels.Traffic;
import io.busload.kernels.VariantFamily;
import io.busload.kernels.matmul.Matmul;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Deliberately wrong kernels (src/main/cuda/mutants.cu): each is a real kernel of the catalog with one
 * mistake, run with the real kernel's program and check, and each must come out invalid. On a GPU the mistake is
 * in the CUDA kernel; on a CPU in a Java twin that makes the same mistake after the real CPU pattern ran. Suite
 * {@code mutants} only ({@link #inCoalescingSuite()}): a test of the checks, never a measurement. Size: that of
 * the real kernel (matmul side, reduction and copy elements); by default small enough for a CPU in a test.
 */
public final class Mutants extends VariantFamily<Mutants.Variant, Mutants.Case> {
  public static final String NAME = "mutants";
  /** The matmul mutants' tiles: block (1, 1) is skipped, block (2, 1) stops one product short. */
  static final int TILE = Matmul.TILE;
  /** The element the stride mutant skips: thread 5 of block 1, its third element (k = 2). */
  static final long SKIPPED = 1L * 256 * 4 + 5 + 2 * 256;

  /** A row of the family's table: the mutant's name and entry point, and the real entry point it stands for. */
  public record Variant(String kernel, String entryPoint, String replaces) implements VariantFamily.Kernel {
    public static final Variant MATMUL_SKIP_TILE = new Variant("mutant-matmul-skip-tile",
        "busload_mutant_matmul_skip_tile", "busload_matmul_coalesced");
    public static final Variant MATMUL_SHORT_TILE = new Variant("mutant-matmul-short-tile",
        "busload_mutant_matmul_short_tile", "busload_matmul_coalesced");
    public static final Variant REDUCTION_DROP_BLOCK = new Variant("mutant-reduction-drop-block",
        "busload_mutant_reduction_drop_block", "busload_mutant_reduction_drop_block");
    public static final Variant STRIDE_SKIP_ELEMENT = new Variant("mutant-stride-skip-element",
        "busload_mutant_stride_skip_element", StridedCopy.ENTRY_POINT);
    public static final Variant COPY_LATE = new Variant("mutant-copy-late", "busload_mutant_copy_late",
        StridedCopy.ENTRY_POINT);
    public static final List<Variant> ALL = List.of(MATMUL_SKIP_TILE, MATMUL_SHORT_TILE, REDUCTION_DROP_BLOCK,
        STRIDE_SKIP_ELEMENT, COPY_LATE);
  }

  public Mutants() {
    super(NAME, Variant.ALL, Suites.OWN_ONLY);
  }

  /**
   * Matmul 256 (at 4096 Freivalds' tolerance is wider than one product per element of a tile, which only the
   * sampled elements can catch); 2^20 elements otherwise.
   */
  @Override
  public long defaultSize(KernelCase kernelCase, DeviceLimits limits) {
    return variant(kernelCase).kernel().startsWith("mutant-matmul") ? 256 : 1L << 20;
  }

  @Override
  protected Case program(Variant variant, long size) {
    if (variant.kernel().startsWith("mutant-matmul")) {
      if (size < 3 * TILE) {
        throw new IllegalArgumentException("size: must be at least " + 3 * TILE + " for the mutated tiles, got " + size);
      }
      return new Case(variant, new Matmul().program(new KernelCase(
          new Matmul().kernels().get(Matmul.Variant.COALESCED.ordinal()), Map.of()), size));
    }
    Families.require("size", size, 4096, 1L << 30, 1);
    if (variant.equals(Variant.REDUCTION_DROP_BLOCK)) {
      return new Case(variant, new Reduction.Case(new Reduction.Variant(variant.kernel(), variant.entryPoint(),
          Reduction.Order.HALVING), size));
    }
    long stride = variant.equals(Variant.COPY_LATE) ? 1 : 2;
    return new Case(variant, Catalog.family(StridedCopy.NAME).program(
        new KernelCase(StridedCopy.STRIDE_COPY_FP32, Map.of("stride", stride)), size));
  }

  /** A real program with the mutant's entry point in place of the real one, and its mistake made on a CPU. */
  public static final class Case implements Program {
    private final Variant variant;
    private final Program real;
    /** Launches of {@link Variant#COPY_LATE} on a CPU, as the CUDA twin counts them in a device global. */
    private final AtomicLong launches = new AtomicLong();

    Case(Variant variant, Program real) {
      this.variant = variant;
      this.real = real;
    }

    public Variant variant() {
      return variant;
    }

    @Override
    public List<Buffer> buffers() {
      return real.buffers();
    }

    @Override
    public void fill(int buffer, long first, MemorySegment chunk) {
      real.fill(buffer, first, chunk);
    }

    @Override
    public List<Step> steps() {
      return real.steps().stream().map(step -> step instanceof Step.Kernel k && k.entryPoint().equals(variant.replaces())
          ? new Step.Kernel(variant.entryPoint(), k.grid(), k.block(), k.sharedBytes(), k.args()) : step).toList();
    }

    @Override
    public Traffic traffic() {
      return real.traffic();
    }

    @Override
    public List<Coalescing> coalescing() {
      return real.coalescing();
    }

    @Override
    public Check check(List<MemorySegment> host) {
      return real.check(host);
    }

    @Override
    public Check checkAfter(List<MemorySegment> host, long launches) {
      return real.checkAfter(host, launches);
    }

    @Override
    public Optional<String> skipReason(DeviceLimits limits) {
      return real.skipReason(limits);
    }

    /** The real kernel's pattern, then the mutant's mistake, as its CUDA twin makes it. */
    @Override
    public void runOnCpu(List<MemorySegment> buffers, Parallel parallel) {
      real.runOnCpu(buffers, parallel);
      MemorySegment out = buffers.getLast();
      if (variant.equals(Variant.MATMUL_SKIP_TILE)) {
        int n = side(out);
        for (long row = TILE; row < 2 * TILE; row++) {
          out.asSlice((row * n + TILE) * Float.BYTES, TILE * Float.BYTES).fill(Poison.BYTE);
        }
      } else if (variant.equals(Variant.MATMUL_SHORT_TILE)) {
        int n = side(out);
        for (long row = TILE; row < 2 * TILE; row++) {
          for (long col = 2 * TILE; col < 3 * TILE; col++) {
            out.setAtIndex(JAVA_FLOAT, row * n + col, dot(buffers.get(0), buffers.get(1), n, row, col, n - 1));
          }
        }
      } else if (variant.equals(Variant.REDUCTION_DROP_BLOCK)) {
        Reduction.Case reduction = (Reduction.Case) real;
        buffers.get(1).setAtIndex(JAVA_FLOAT, 1, 0.0f);
        out.setAtIndex(JAVA_FLOAT, 0, reduction.finalSum(buffers.get(1)));
      } else if (variant.equals(Variant.STRIDE_SKIP_ELEMENT)) {
        out.asSlice(SKIPPED * Float.BYTES, Float.BYTES).fill(Poison.BYTE);
      } else if (launches.getAndIncrement() > 0) {
        out.setAtIndex(JAVA_FLOAT, 0, buffers.get(0).getAtIndex(JAVA_FLOAT, 1));
      }
    }

    private static int side(MemorySegment c) {
      return (int) Math.round(Math.sqrt(c.byteSize() / (double) Float.BYTES));
    }

    /** busload_mutant_dot: fp32 in k order, stopping at {@code kEnd}. */
    private static float dot(MemorySegment a, MemorySegment b, long n, long row, long col, long kEnd) {
      float acc = 0;
      for (long k = 0; k < kEnd; k++) {
        acc += a.getAtIndex(JAVA_FLOAT, row * n + k) * b.getAtIndex(JAVA_FLOAT, k * n + col);
      }
      return acc;
    }
  }
}
