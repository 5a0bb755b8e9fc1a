package io.busload.kernels.families;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static org.assertj.core.api.Assertions.assertThat;

import io.busload.kernels.Arg;
import io.busload.kernels.Check;
import io.busload.kernels.Coalescing;
import io.busload.kernels.Dim3;
import io.busload.kernels.Harness;
import io.busload.kernels.Program;
import io.busload.kernels.Step;
import io.busload.kernels.Traffic;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ParticlesTest {
  private final Particles family = new Particles();

  @Test
  void check_runOnCpuOutputOfEveryLayout_passes() {
    Harness.assertEveryVariantPasses(family, List.of(96L), n -> n * 8);
  }

  @Test
  void fill_everyLayout_sameParticlesInTheirPlaces() {
    try (Arena arena = Arena.ofShared()) {
      for (Particles.Layout layout : Particles.Layout.values()) {
        MemorySegment p = Harness.prepare(program(layout, 64), arena).getFirst();
        assertThat(p.getAtIndex(JAVA_FLOAT, layout.offset(37, 6, 64))).isEqualTo(Particles.initial(37, 6));
        assertThat(p.getAtIndex(JAVA_FLOAT, layout.offset(63, 0, 64))).isEqualTo(Particles.initial(63, 0));
      }
    }
  }

  @Test
  void layoutOffsets_byHand() {
    assertThat(Particles.Layout.AOS.offset(2, 3, 64)).isEqualTo(19);
    assertThat(Particles.Layout.SOA.offset(2, 3, 64)).isEqualTo(194);
    assertThat(Particles.Layout.AOSOA.offset(33, 3, 64)).isEqualTo(256 + 96 + 1);
  }

  @Test
  void check_notUpdatedOrCorrupted_failsWithFirstMismatches() {
    Program p = program(Particles.Layout.SOA, 64);
    try (Arena arena = Arena.ofShared()) {
      List<MemorySegment> unchanged = Harness.prepare(p, arena);
      assertThat(p.check(unchanged).mismatchCount()).isEqualTo(64 * 3); // every x, y, z left as it was

      List<MemorySegment> buffers = Harness.runOnCpu(p, arena);
      buffers.getFirst().setAtIndex(JAVA_FLOAT, Particles.Layout.SOA.offset(5, 7, 64), 0.25f); // charge of 5
      Check check = p.check(buffers);
      assertThat(check.mismatchCount()).isEqualTo(1);
      assertThat(check.mismatches()).containsExactly(
          "charge[5]: expected " + Particles.initial(5, 7) + ", got 0.25");
    }
  }

  @Test
  void traffic_n64_24BytesReadAnd12WrittenPerParticle() {
    Traffic t = program(Particles.Layout.AOS, 64).traffic();
    assertThat(t.bytesRead()).isEqualTo(64 * 24);
    assertThat(t.bytesWritten()).isEqualTo(64 * 12);
    assertThat(t.flops()).isEqualTo(64 * 6);
  }

  @Test
  void coalescing_aos_everyAccessThirtyTwoSectors() {
    List<Coalescing> model = program(Particles.Layout.AOS, 1 << 20).coalescing();
    assertThat(model).hasSize(9);
    assertThat(model).extracting(Coalescing::sectorsPerRequest).containsOnly(32); // lanes 32 bytes apart
    assertThat(model).extracting(Coalescing::linesPerRequest).containsOnly(8);
    assertThat(model.get(6).access()).isEqualTo("store x");
    assertThat(model.get(6).store()).isTrue();
  }

  @ParameterizedTest
  @EnumSource(names = {"SOA", "AOSOA"})
  void coalescing_soaAndAosoa_everyAccessFourSectors(Particles.Layout layout) {
    assertThat(program(layout, 1 << 20).coalescing()).extracting(Coalescing::sectorsPerRequest).containsOnly(4);
  }

  @Test
  void steps_n2pow24_oneParticlePerThread() {
    Step.Kernel k = (Step.Kernel) program(Particles.Layout.AOSOA, 1 << 24).steps().getFirst();
    assertThat(k.grid()).isEqualTo(Dim3.of(1 << 16));
    assertThat(k.block()).isEqualTo(Dim3.of(256));
    assertThat(k.args()).containsExactly(Arg.buf(0), Arg.i64(1 << 24), new Arg.F32(Particles.DT));
  }

  @Test
  void checkAfter_manyLaunches_passesWithinTheFmaBoundAndFailsAParticleLeftBehind() {
    for (Particles.Layout layout : Particles.Layout.values()) {
      Particles.Case p = program(layout, 96);
      try (Arena arena = Arena.ofShared()) {
        List<MemorySegment> buffers = Harness.prepare(p, arena);
        int launches = 5_000;
        for (int k = 0; k < launches; k++) {
          p.runOnCpu(buffers, io.busload.kernels.Parallel.serial());
        }
        assertThat(p.checkAfter(buffers, launches).passed()).as(layout + " after " + launches).isTrue();
        assertThat(p.check(buffers).passed()).as(layout + ": the one-launch check").isFalse();

        // Particle 7 as a kernel that skipped it from the second launch on would leave it: one step only.
        MemorySegment moved = buffers.getFirst();
        long x = layout.offset(7, 0, 96);
        moved.setAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT, x,
            Math.fma(Particles.initial(7, 3), Particles.DT, Particles.initial(7, 0)));
        assertThat(p.checkAfter(buffers, launches).mismatches()).singleElement().asString()
            .startsWith("x[7]: expected ").contains("after 5000 launches");
      }
    }
  }

  private Particles.Case program(Particles.Layout layout, long n) {
    return Harness.program(family, Particles.Variant.of(layout), n);
  }
}
