package io.busload.kernels.families;

import io.busload.kernels.Buffer;
import io.busload.kernels.Check;
import io.busload.kernels.Family;
import io.busload.kernels.KernelCase;
import io.busload.kernels.KernelSpec;
import io.busload.kernels.Parallel;
import io.busload.kernels.Poison;
import io.busload.kernels.Program;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** What a backend does with a program, in small: allocate, fill in chunks, poison outputs, run on CPU, check. */
final class Harness {
  private Harness() {}

  static KernelCase kernelCase(Family family, String kernel) {
    KernelSpec spec = family.kernels().stream().filter(k -> k.name().equals(kernel)).findFirst().orElseThrow();
    return new KernelCase(spec, Map.of());
  }

  static Program program(Family family, String kernel, long size) {
    return family.program(kernelCase(family, kernel), size);
  }

  /** Buffers as a backend prepares them: inputs filled in two chunks (second half first), outputs poisoned. */
  static List<MemorySegment> prepare(Program program, Arena arena) {
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
  static Parallel threads(int threads) {
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
  static List<MemorySegment> runOnCpu(Program program, Arena arena) {
    List<MemorySegment> buffers = prepare(program, arena);
    program.runOnCpu(buffers, threads(3));
    return buffers;
  }

  static Check runAndCheck(Program program) {
    try (Arena arena = Arena.ofShared()) {
      return program.check(runOnCpu(program, arena));
    }
  }
}
