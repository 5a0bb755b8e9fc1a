package io.busload.agent.bench;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.busload.agent.cpu.CpuDevice;
import io.busload.agent.measure.Plan;
import io.busload.kernels.Buffer;
import io.busload.kernels.Check;
import io.busload.kernels.DeviceLimits;
import io.busload.kernels.Parallel;
import io.busload.kernels.Poison;
import io.busload.kernels.Program;
import io.busload.kernels.SuiteOptions;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * The host-side work of the coalescing suite (on an H100 the suite used 243 s of CPU for 80.8 s
 * of wall time, in fills and checks, not kernels): every case at the CPU backend's default sizes is filled as
 * CudaWorkload fills (parallel parts of whole elements), run once on the CPU (not timed: on a GPU the kernel does
 * it), then checked, as Measurement checks it after the first launch and again after the timed ones. Prints, per
 * family and in total, the process CPU seconds and wall seconds of the fills and of the checks and their ratio
 * (CPU / wall: how many cores the work keeps busy). Run on request, so the suite does not pay for it:
 * {@code ./busload mvn -pl agent -am test -Dtest=HostWorkBenchmark -Dsurefire.failIfNoSpecifiedTests=false
 * -Dbusload.bench=true}; compare two commits by running it on each.
 */
class HostWorkBenchmark {
  private static final com.sun.management.OperatingSystemMXBean OS =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  /** CPU and wall seconds of one kind of work. */
  private static final class Time {
    double cpu;
    double wall;
    long bytes;

    void add(Runnable work) {
      long cpu0 = OS.getProcessCpuTime();
      long wall0 = System.nanoTime();
      work.run();
      wall += (System.nanoTime() - wall0) / 1e9;
      cpu += (OS.getProcessCpuTime() - cpu0) / 1e9;
    }
  }

  @Test
  void coalescingSuite_cpuSizes_fillAndCheckTimes() {
    assumeTrue(Boolean.getBoolean("busload.bench"), "run with -Dbusload.bench=true");
    // -Dbusload.bench.gpu=true plans the suite at an H200's default sizes (141 GiB, 60 MiB of L2, 132 SMs): the
    // host work of a GPU run, which the CPU backend's smaller defaults understate.
    DeviceLimits limits = Boolean.getBoolean("busload.bench.gpu")
        ? new DeviceLimits(DeviceLimits.CUDA, 150_754_820_096L, 150_000_000_000L, 62_914_560L, 132)
        : CpuDevice.create("bench").limits();
    Plan plan = Plan.resolve("coalescing", SuiteOptions.DEFAULTS, limits, limits.kind());
    int cores = Runtime.getRuntime().availableProcessors();
    Parallel parallel = new Parallel() {
      @Override
      public int threads() {
        return cores;
      }

      @Override
      public void forRange(long count, Range range) {
        int parts = (int) Math.max(1, Math.min(cores, count));
        LongStream.range(0, parts).parallel().forEach(p -> range.run(count * p / parts, count * (p + 1) / parts));
      }
    };
    TreeMap<String, Time[]> byFamily = new TreeMap<>();
    Time fill = new Time();
    Time check = new Time();
    Time recheck = new Time();
    List<String> failed = new ArrayList<>();
    for (Plan.Planned planned : plan.cases()) {
      Program program = planned.program();
      if (program == null) {
        continue;
      }
      String family = planned.kernelCase().spec().family();
      Time[] times = byFamily.computeIfAbsent(family, f -> new Time[] {new Time(), new Time()});
      long inputBytes = program.buffers().stream()
          .filter(b -> b.role() == Buffer.Role.INPUT || b.role() == Buffer.Role.INOUT).mapToLong(Buffer::bytes).sum();
      long outputBytes = program.buffers().stream()
          .filter(b -> b.role() != Buffer.Role.INPUT).mapToLong(Buffer::bytes).sum();
      times[0].bytes += inputBytes;
      times[1].bytes += outputBytes;
      try (Arena arena = Arena.ofShared()) {
        List<MemorySegment> buffers = new ArrayList<>();
        for (Buffer b : program.buffers()) {
          MemorySegment segment = arena.allocate(b.bytes(), 64);
          if (b.role() == Buffer.Role.OUTPUT) {
            segment.fill(Poison.BYTE);
          }
          buffers.add(segment);
        }
        Runnable filling = () -> {
          for (int i = 0; i < buffers.size(); i++) {
            Buffer b = program.buffers().get(i);
            if (b.role() == Buffer.Role.INPUT || b.role() == Buffer.Role.INOUT) {
              fill(program, i, b, buffers.get(i), cores);
            }
          }
        };
        fill.add(filling);
        times[0].add(filling);
        program.runOnCpu(buffers, parallel);
        Check[] result = new Check[2];
        Runnable first = () -> result[0] = program.check(buffers);
        Runnable again = () -> result[1] = program.check(buffers);
        check.add(first);
        times[1].add(first);
        recheck.add(again);
        if (!result[0].passed()) {
          failed.add(planned.kernelCase() + ": " + result[0].mismatches());
        }
      }
    }
    System.out.printf(Locale.ROOT, "host work of the coalescing suite at CPU sizes, %d cores%n", cores);
    System.out.printf(Locale.ROOT, "%-12s %10s %10s %10s %10s %10s %10s %12s %12s%n", "family", "fill cpu s",
        "fill wall", "check cpu", "check wall", "in GiB", "out GiB", "fill ns/B", "check ns/B");
    byFamily.forEach((family, t) -> System.out.printf(Locale.ROOT, "%-12s %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f %12.3f %12.3f%n",
        family, t[0].cpu, t[0].wall, t[1].cpu, t[1].wall, t[0].bytes / 1073741824.0, t[1].bytes / 1073741824.0,
        t[0].cpu * 1e9 / Math.max(1, t[0].bytes), t[1].cpu * 1e9 / Math.max(1, t[1].bytes)));
    for (var line : List.of(List.of("fill", fill), List.of("check", check), List.of("check again", recheck))) {
      Time t = (Time) line.get(1);
      System.out.printf(Locale.ROOT, "%-12s cpu %7.2f s, wall %7.2f s, cpu/wall %.2f%n", line.get(0), t.cpu, t.wall,
          t.cpu / t.wall);
    }
    System.out.printf(Locale.ROOT, "total        cpu %7.2f s, wall %7.2f s%n", fill.cpu + check.cpu + recheck.cpu,
        fill.wall + check.wall + recheck.wall);
    failed.forEach(f -> System.out.println("FAILED " + f));
  }

  /** As CudaWorkload.upload fills: parallel parts of whole elements, four per core, none under 64 Ki elements. */
  private static void fill(Program program, int index, Buffer b, MemorySegment segment, int cores) {
    long parts = Math.max(1, Math.min(cores * 4L, b.elements() / 65_536));
    int size = b.type().bytes();
    LongStream.range(0, parts).parallel().forEach(p -> {
      long from = b.elements() * p / parts;
      long to = b.elements() * (p + 1) / parts;
      program.fill(index, from, segment.asSlice(from * size, (to - from) * size));
    });
  }
}
