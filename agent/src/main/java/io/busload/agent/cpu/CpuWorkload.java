package io.busload.agent.cpu;

import io.busload.agent.device.DeviceException;
import io.busload.agent.device.Workload;
import io.busload.kernels.FloatView;
import io.busload.kernels.KernelCase;
import io.busload.kernels.Poison;
import io.busload.kernels.RandomFloats;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/** One kernel case in off-heap memory; a launch splits the output range evenly over the threads. */
final class CpuWorkload implements Workload {
  private final long elements;
  private final ExecutorService pool;
  private final int threads;
  private final Arena arena = Arena.ofShared();
  private final MemorySegment in;
  private final MemorySegment out;
  private final CpuKernels.RangeKernel kernel;

  CpuWorkload(KernelCase kernelCase, long elements, RandomFloats random, ExecutorService pool, int threads) {
    this.elements = elements;
    this.pool = pool;
    this.threads = threads;
    try {
      this.kernel = CpuKernels.of(kernelCase);
      this.in = arena.allocate(Math.multiplyExact(kernelCase.inputElements(elements), 4L), 64);
      this.out = arena.allocate(Math.multiplyExact(elements, 4L), 64);
      long inputElements = kernelCase.inputElements(elements);
      parallel(inputElements, (from, to) -> random.fill(in.asSlice(from * 4, (to - from) * 4), from, to - from));
      parallel(elements, (from, to) -> {
        for (long i = from; i < to; i++) {
          out.setAtIndex(ValueLayout.JAVA_FLOAT, i, Poison.VALUE);
        }
      });
    } catch (RuntimeException | OutOfMemoryError e) {
      arena.close();
      throw e instanceof DeviceException d ? d : new DeviceException("cpu: cannot prepare " + kernelCase + ": " + e, e);
    }
  }

  private interface Range {
    void run(long from, long to);
  }

  /** Splits {@code [0, count)} into one contiguous range per thread and waits for all of them. */
  private void parallel(long count, Range range) {
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
        throw new DeviceException("cpu: a launch failed: " + e.getCause(), e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new DeviceException("cpu: interrupted", e);
      }
    }
  }

  @Override
  public double timeBatch(int launches) {
    long start = System.nanoTime();
    for (int i = 0; i < launches; i++) {
      parallel(elements, (from, to) -> kernel.run(in, out, from, to));
    }
    return (System.nanoTime() - start) / 1e9;
  }

  @Override
  public FloatView readOutput() {
    return FloatView.of(out);
  }

  @Override
  public void close() {
    if (arena.scope().isAlive()) {
      arena.close();
    }
  }
}
