package io.busload.kernels.families;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.busload.kernels.Buffer;
import io.busload.kernels.Catalog;
import io.busload.kernels.DeviceLimits;
import io.busload.kernels.KernelCase;
import io.busload.kernels.KernelSpec;
import io.busload.kernels.Program;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The fault family: its own suite, never in coalescing, and faults a CPU refuses cleanly. */
class FaultsTest {
  private static final DeviceLimits GPU = new DeviceLimits("cuda", 80L << 30, 79L << 30, 50L << 20, 132);

  @Test
  void catalog_faultsFamily_ownSuiteOnlyNotInCoalescing() {
    assertThat(Catalog.suiteNames()).contains(Faults.NAME);
    assertThat(Catalog.suite(Faults.NAME)).extracting(KernelSpec::name)
        .containsExactly("memcpy-d2d", "faults-oob-write", "faults-huge-alloc", "faults-copy");
    assertThat(Catalog.suite(Catalog.COALESCING)).extracting(KernelSpec::family).doesNotContain(Faults.NAME);
    assertThat(Catalog.suite(Catalog.COALESCING)).extracting(KernelSpec::name)
        .noneMatch(name -> name.startsWith("faults"));
  }

  @Test
  void hugeAlloc_onAGpu_notSkippedSoTheAllocatorRefusesIt() {
    Program huge = program("faults-huge-alloc", 1 << 20);

    assertThat(huge.deviceBytes()).isGreaterThan(Faults.HUGE_BYTES - 1);
    assertThat(huge.skipReason(GPU)).isEmpty();
    assertThat(program("faults-copy", 1 << 20).skipReason(GPU)).isEmpty();
  }

  @Test
  void oobWrite_onCpuSegments_refusedByTheBoundsCheck() {
    Program oob = program("faults-oob-write", 1024);
    try (Arena arena = Arena.ofConfined()) {
      List<MemorySegment> buffers = allocate(arena, oob);

      assertThatThrownBy(() -> oob.runOnCpu(buffers, io.busload.kernels.Parallel.serial()))
          .isInstanceOf(IndexOutOfBoundsException.class);
      assertThat(oob.check(buffers).passed()).isFalse();
    }
  }

  @Test
  void copy_onCpu_validAfterTheFaults() {
    Program copy = program("faults-copy", 4096);
    try (Arena arena = Arena.ofConfined()) {
      List<MemorySegment> buffers = allocate(arena, copy);
      copy.fill(0, 0, buffers.get(0));

      copy.runOnCpu(buffers, io.busload.kernels.Parallel.serial());

      assertThat(copy.check(buffers).passed()).isTrue();
    }
  }

  private static Program program(String kernel, long size) {
    KernelCase kernelCase = Catalog.cases(Faults.NAME).stream().filter(c -> c.spec().name().equals(kernel))
        .findFirst().orElseThrow();
    return Catalog.familyOf(kernelCase).program(kernelCase, size);
  }

  private static List<MemorySegment> allocate(Arena arena, Program program) {
    List<MemorySegment> buffers = new ArrayList<>();
    for (Buffer buffer : program.buffers()) {
      buffers.add(arena.allocate(buffer.bytes(), 64));
    }
    return buffers;
  }
}
