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
import java.util.List;
import java.util.Optional;

/**
 * Deliberate faults (src/main/cuda/faults.cu): a kernel that writes 64 TiB past its buffer, a case
 * that allocates 2^50 bytes (more than any GPU or host has), then a plain fp32 copy that must still be valid.
 * Suite {@code faults} only: {@link #inCoalescingSuite()} keeps it out of {@code coalescing}. Expected on a GPU:
 * the first fails with CUDA_ERROR_ILLEGAL_ADDRESS and the context is reset, the second with
 * CUDA_ERROR_OUT_OF_MEMORY from cuMemAlloc (the allocation is attempted: this family does not skip for size),
 * the copy is measured and valid. On a CPU the write is refused as an out-of-bounds access and the allocation
 * as larger than the memory available, each failing only its case. Size: elements n of the copy and the write,
 * 32..2^30 (default 2^24 on a GPU, 2^20 on a CPU).
 */
public final class Faults extends VariantFamily<Faults.Variant, Faults.Case> {
  public static final String NAME = "faults";
  public static final int BLOCK = 256;
  /** Elements past the end of {@code out} that the faulting kernel writes to: 2^44 floats, 64 TiB. */
  public static final long OOB_OFFSET = 1L << 44;
  /** Bytes the huge case asks for: 1 PiB. */
  public static final long HUGE_BYTES = 1L << 50;

  /** A row of the family's table; the huge allocation launches the copy, if its allocation ever succeeds. */
  public record Variant(String kernel, String entryPoint) implements VariantFamily.Kernel {
    public static final Variant OOB_WRITE = new Variant("faults-oob-write", "busload_faults_oob_write_f32");
    public static final Variant HUGE_ALLOC = new Variant("faults-huge-alloc", "busload_faults_copy_f32");
    public static final Variant COPY = new Variant("faults-copy", "busload_faults_copy_f32");
    public static final List<Variant> ALL = List.of(OOB_WRITE, HUGE_ALLOC, COPY);
  }

  public Faults() {
    super(NAME, Variant.ALL, Suites.OWN_ONLY);
  }

  @Override
  public long defaultSize(KernelCase kernelCase, DeviceLimits limits) {
    return Families.fit(limits, 1L << 24, 1L << 20, 2, 1024, n -> 2 * n * Float.BYTES);
  }

  @Override
  protected Case program(Variant variant, long size) {
    return new Case(variant, Families.require("size", size, 32, 1L << 30, 1));
  }

  /** Buffers: 0 {@code in} (fp32, n; for the huge case 2^48 elements), 1 {@code out} (fp32, n). */
  public record Case(Variant variant, long n) implements Program {
    private static final int IN = 0;
    private static final int OUT = 1;

    @Override
    public List<Buffer> buffers() {
      long in = variant.equals(Variant.HUGE_ALLOC) ? HUGE_BYTES / Float.BYTES : n;
      return Families.inAndOut(ElementType.FP32, in, n);
    }

    /** The huge case must reach the allocator (that is its point): never skipped for size. */
    @Override
    public Optional<String> skipReason(DeviceLimits limits) {
      return variant.equals(Variant.HUGE_ALLOC) ? Optional.empty() : Program.super.skipReason(limits);
    }

    @Override
    public void fill(int buffer, long first, MemorySegment chunk) {
      Families.fillInput(buffer, IN, first, chunk);
    }

    @Override
    public List<Step> steps() {
      Dim3 grid = Dim3.blocksFor(n, BLOCK);
      return List.of(variant.equals(Variant.OOB_WRITE)
          ? new Step.Kernel(variant.entryPoint(), grid, Dim3.of(BLOCK), 0,
              List.of(Arg.buf(OUT), Arg.i64(n), Arg.i64(OOB_OFFSET)))
          : new Step.Kernel(variant.entryPoint(), grid, Dim3.of(BLOCK), 0,
              List.of(Arg.buf(IN), Arg.buf(OUT), Arg.i64(n))));
    }

    @Override
    public Traffic traffic() {
      return variant.equals(Variant.OOB_WRITE) ? new Traffic(0, n * Float.BYTES, 0)
          : new Traffic(n * Float.BYTES, n * Float.BYTES, 0);
    }

    @Override
    public List<Coalescing> coalescing() {
      Coalescing store = Families.warp("store out", true, lane -> lane * Float.BYTES, Float.BYTES);
      return variant.equals(Variant.OOB_WRITE) ? List.of(store)
          : List.of(Families.warp("load in", false, lane -> lane * Float.BYTES, Float.BYTES), store);
    }

    /** out must equal in, bit for bit; the faulting write getting this far is itself the failure. */
    @Override
    public Check check(List<MemorySegment> host) {
      Check.Collector collector = new Check.Collector();
      if (variant.equals(Variant.OOB_WRITE)) {
        collector.mismatch("the out-of-bounds write completed without a fault: nothing refused it");
        return collector.result();
      }
      MemorySegment out = host.get(OUT);
      RandomFloats in = Families.input(IN);
      for (long i = 0; i < n; i++) {
        float expected = in.get(i);
        float actual = out.getAtIndex(JAVA_FLOAT, i);
        if (!Families.same(expected, actual)) {
          collector.mismatch("out[" + i + "]: expected " + expected + ", got " + Families.describe(actual));
        }
      }
      collector.checked(n);
      return collector.result();
    }

    /**
     * The same accesses in Java: the faulting write goes through the segment's bounds check, which refuses it
     * with an {@link IndexOutOfBoundsException} (the CPU backend reports it as an invalid access).
     */
    @Override
    public void runOnCpu(List<MemorySegment> buffers, Parallel parallel) {
      MemorySegment in = buffers.get(IN);
      MemorySegment out = buffers.get(OUT);
      boolean oob = variant.equals(Variant.OOB_WRITE);
      parallel.forRange(n, (from, to) -> {
        for (long i = from; i < to; i++) {
          if (oob) {
            out.setAtIndex(JAVA_FLOAT, OOB_OFFSET + i, 1.0f);
          } else {
            out.setAtIndex(JAVA_FLOAT, i, in.getAtIndex(JAVA_FLOAT, i));
          }
        }
      });
    }
  }
}
