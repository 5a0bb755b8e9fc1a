package io.busload.kernels;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongUnaryOperator;

/**
 * What a backend does with a program, in small: allocate, fill in chunks, poison outputs, run on CPU, check. Shared
 * by the tests of every family.
 */
public final class Harness {
  private Harness() {}

  public static KernelCase kernelCase(Family family, String kernel) {
    KernelSpec spec = family.kernels().stream().filter(k -> k.name().equals(kernel)).findFirst().orElseThrow();
    return new KernelCase(spec, Map.of());
  }

  public static Program program(Family family, String kernel, long size) {
    return family.program(kernelCase(family, kernel), size);
  }

  /** The program of one row of a family's table, reached as the agent reaches it: by its kernel's name. */
  public static <V extends VariantFamily.Kernel, C extends Program> C program(VariantFamily<V, C> family, V variant,
      long size) {
    return family.program(kernelCase(family, variant.kernel()), size);
  }

  /**
   * Every row of {@code family} at every size in {@code sizes}, prepared, run on the CPU and checked: each passes,
   * having checked {@code checked(size)} values.
   */
  public static void assertEveryVariantPasses(VariantFamily<?, ?> family, List<Long> sizes, LongUnaryOperator checked) {
    for (VariantFamily.Kernel variant : family.variants()) {
      for (long n : sizes) {
        Check check = runAndCheck(program(family, variant.kernel(), n));
        assertThat(check.passed()).as("%s n=%d: %s", variant.kernel(), n, check.mismatches()).isTrue();
        assertThat(check.checked()).as("%s n=%d", variant.kernel(), n).isEqualTo(checked.applyAsLong(n));
      }
    }
  }

  /** Buffers as a backend prepares them: inputs filled in two chunks (second half first), outputs poisoned. */
  public static List<MemorySegment> prepare(Program program, Arena arena) {
    List<MemorySegment> buffers = new ArrayList<>();
    List<Buffer> declared = program.buffers();
    for (int b = 0; b < declared.size(); b++) {
      Buffer buffer = declared.get(b);
      MemorySegment segment = arena.allocate(buffer.bytes(), 64);
      switch (buffer.role()) {
        case INPUT, INOUT -> {
          long half = buffer.elements() / 2;
          int size = buffer.type().bytes();
          program.fill(b, half, segment.asSlice(half * size));
          program.fill(b, 0, segment.asSlice(0, half * size));
        }
        case OUTPUT -> segment.fill(Poison.BYTE);
        case SCRATCH -> segment.fill((byte) 0);
      }
      buffers.add(segment);
    }
    return buffers;
  }

  /** Runs {@code threads} contiguous ranges on their own threads, as the CPU backend does. */
  public static Parallel threads(int threads) {
    return new Parallel() {
      @Override
      public int threads() {
        return threads;
      }

      @Override
      public void forRange(long count, Range range) {
        List<Thread> started = new ArrayList<>();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < threads; t++) {
          long from = count * t / threads;
          long to = count * (t + 1) / threads;
          started.add(Thread.ofPlatform().start(() -> {
            try {
              range.run(from, to);
            } catch (Throwable e) {
              failures.add(e);
            }
          }));
        }
        for (Thread thread : started) {
          try {
            thread.join();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
          }
        }
        if (!failures.isEmpty()) {
          throw new IllegalStateException("a range failed", failures.getFirst());
        }
      }
    };
  }

  /** Prepared buffers after one CPU launch on three threads. */
  public static List<MemorySegment> runOnCpu(Program program, Arena arena) {
    List<MemorySegment> buffers = prepare(program, arena);
    program.runOnCpu(buffers, threads(3));
    return buffers;
  }

  public static Check runAndCheck(Program program) {
    try (Arena arena = Arena.ofShared()) {
      return program.check(runOnCpu(program, arena));
    }
  }
}
