package io.busload.agent.cpu;

import io.busload.agent.device.DeviceException;
import io.busload.agent.device.Workload;
import io.busload.kernels.Buffer;
import io.busload.kernels.Parallel;
import io.busload.kernels.Poison;
import io.busload.kernels.Program;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/** One program in off-heap memory; a launch is {@link Program#runOnCpu} over the device's threads. */
final class CpuWorkload implements Workload {
  private final Program program;
  private final Arena arena = Arena.ofShared();
  private final List<MemorySegment> buffers = new ArrayList<>();
  private final Parallel parallel;

  CpuWorkload(Program program, ExecutorService pool, int threads) {
    this.program = program;
    this.parallel = new PoolParallel(pool, threads);
    // Refused before allocating: asking the OS for 2^50 bytes fails late and unclearly, or not at all
    // until the pages are touched.
    long needed = program.deviceBytes();
    long available = CpuDevice.availableBytes();
    if (needed > available) {
      arena.close();
      throw new DeviceException("cpu: cannot allocate " + io.busload.kernels.Sizes.bytes(needed) + " for the buffers ("
          + program.buffers().stream().map(b -> b.name() + " " + io.busload.kernels.Sizes.bytes(b.bytes())).toList()
          + "): only " + io.busload.kernels.Sizes.bytes(available) + " available");
    }
    try {
      for (int i = 0; i < program.buffers().size(); i++) {
        Buffer buffer = program.buffers().get(i);
        MemorySegment segment = arena.allocate(buffer.bytes(), 64);
        buffers.add(segment);
        int index = i;
        int size = buffer.type().bytes();
        switch (buffer.role()) {
          case INPUT, INOUT -> parallel.forRange(buffer.elements(),
              (from, to) -> program.fill(index, from, segment.asSlice(from * size, (to - from) * size)));
          case OUTPUT -> parallel.forRange(buffer.bytes(), (from, to) -> segment.asSlice(from, to - from).fill(Poison.BYTE));
          case SCRATCH -> { }
        }
      }
    } catch (RuntimeException | OutOfMemoryError e) {
      arena.close();
      throw e instanceof DeviceException d ? d : new DeviceException("cpu: cannot prepare the buffers: " + e, e);
    }
  }

  /** Splits {@code [0, count)} into one contiguous range per thread and waits for all of them. */
  private record PoolParallel(ExecutorService pool, int threads) implements Parallel {
    @Override
    public void forRange(long count, Range range) {
      int parts = (int) Math.max(1, Math.min(threads, count));
      List<Future<?>> futures = new ArrayList<>(parts);
      for (int p = 0; p < parts; p++) {
        long from = count * p / parts;
        long to = count * (p + 1) / parts;
        futures.add(pool.submit(() -> range.run(from, to)));
      }
      for (Future<?> future : futures) {
        try {
          future.get();
        } catch (ExecutionException e) {
          if (e.getCause() instanceof IndexOutOfBoundsException outside) {
            // A kernel's access outside its buffers, refused by the segment's bounds check (what would be
            // CUDA_ERROR_ILLEGAL_ADDRESS on a GPU): nothing was written outside, the JVM carries on.
            throw new DeviceException("cpu: invalid memory access refused (out of bounds): " + outside.getMessage(),
                outside);
          }
          throw new DeviceException("cpu: a launch failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new DeviceException("cpu: interrupted", e);
        }
      }
    }
  }

  /** Host-timed: the CPU has no hold, so every batch is {@link Hold#UNHELD}. */
  @Override
  public Batch time(int launches) {
    long start = System.nanoTime();
    for (int i = 0; i < launches; i++) {
      program.runOnCpu(buffers, parallel);
    }
    return new Batch((System.nanoTime() - start) / 1e9, Hold.UNHELD);
  }

  @Override
  public List<MemorySegment> download() {
    return List.copyOf(buffers);
  }

  @Override
  public void close() {
    if (arena.scope().isAlive()) {
      arena.close();
    }
  }
}
