package io.busload.agent.measure;

import io.busload.kernels.Buffer;
import io.busload.kernels.Catalog;
import io.busload.kernels.DeviceLimits;
import io.busload.kernels.Family;
import io.busload.kernels.Parallel;
import io.busload.kernels.Poison;
import io.busload.kernels.Program;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Each kernel of a plan run once at a small size on the host, on one background thread, while a GPU measures the
 * first cases: its input fill, the CPU reference and its check. The JIT then has compiled those loops before the
 * family's first case needs them at full size on every core. Without it, the first case of each family filled and
 * checked its buffers in code still being profiled: on an H200 the first conv2d, gather, particles, reduction and
 * transpose cases each spent 0.9 to 2.6 s on the host where their later siblings spent 0.1 to 0.5 s (2026-11-28).
 *
 * <p>Nothing it computes is kept or reported; a kernel whose rehearsal fails is simply left to its real run.
 */
final class HostRehearsal {
  private static final Logger LOG = LoggerFactory.getLogger(HostRehearsal.class);
  /**
   * Sizes the rehearsal's programs: a budget of 8 MiB (half the memory) shrinks each family's default to a few MiB,
   * or to its smallest size where that is more; the free memory lets any of those run.
   */
  static final DeviceLimits SMALL = new DeviceLimits(DeviceLimits.CPU, 16L << 20, 1L << 30, 1L << 20, 1);
  /** Rounds over every kernel: enough loop iterations for the JIT's optimising tier at these sizes. */
  static final int ROUNDS = 3;

  private HostRehearsal() {}

  /** Starts rehearsing {@code plan}'s kernels on a daemon thread; returns it (for tests to wait on). */
  static Thread start(Plan plan) {
    return Thread.ofPlatform().daemon().name("busload-host-rehearsal").start(() -> rehearse(plan));
  }

  /** How many distinct kernels were rehearsed, and how many of them passed their check every round. */
  record Outcome(int kernels, int passed, List<String> failures) {}

  static Outcome rehearse(Plan plan) {
    List<Program> programs = new ArrayList<>();
    Set<String> seen = new LinkedHashSet<>();
    for (Plan.Planned planned : plan.cases()) {
      if (planned.program() == null || !seen.add(planned.kernelCase().spec().name())) {
        continue;
      }
      try {
        Family family = Catalog.familyOf(planned.kernelCase());
        Program small = family.program(planned.kernelCase(), family.defaultSize(planned.kernelCase(), SMALL));
        // Kernels with no host reference (cuBLAS) or host buffers are left out; their checks are their siblings'.
        if (small.skipReason(SMALL).isEmpty()
            && small.buffers().stream().allMatch(b -> b.memory() == Buffer.Memory.DEVICE)) {
          programs.add(small);
        }
      } catch (RuntimeException e) {
        LOG.debug("{}: not rehearsed on the host: {}", planned.kernelCase(), e.toString());
      }
    }
    String[] failed = new String[programs.size()];
    for (int round = 0; round < ROUNDS; round++) {
      for (int p = 0; p < programs.size(); p++) {
        try {
          String why = once(programs.get(p));
          if (why != null && failed[p] == null) {
            failed[p] = why;
          }
        } catch (RuntimeException e) {
          failed[p] = e.toString();
          LOG.debug("{}: host rehearsal failed: {}", programs.get(p), e.toString());
        }
      }
    }
    List<String> failures = new ArrayList<>();
    for (int p = 0; p < failed.length; p++) {
      if (failed[p] != null) {
        failures.add(programs.get(p) + ": " + failed[p]);
      }
    }
    return new Outcome(programs.size(), programs.size() - failures.size(), failures);
  }

  /** Null when the check passed, else its mismatches. */
  private static String once(Program program) {
    try (Arena arena = Arena.ofShared()) { // checks read in parallel parts
      List<MemorySegment> buffers = new ArrayList<>();
      List<Buffer> layout = program.buffers();
      for (int i = 0; i < layout.size(); i++) {
        Buffer buffer = layout.get(i);
        MemorySegment segment = arena.allocate(Math.max(1, buffer.bytes()), 64);
        switch (buffer.role()) {
          case INPUT, INOUT -> program.fill(i, 0, segment);
          case OUTPUT -> segment.fill(Poison.BYTE);
          case SCRATCH -> { }
        }
        buffers.add(segment);
      }
      program.runOnCpu(buffers, Parallel.serial());
      var check = program.check(buffers);
      return check.passed() ? null : check.mismatches().toString();
    }
  }
}
