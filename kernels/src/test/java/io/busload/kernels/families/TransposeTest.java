package io.busload.kernels.families;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.busload.kernels.Arg;
import io.busload.kernels.Check;
import io.busload.kernels.Coalescing;
import io.busload.kernels.DeviceLimits;
import io.busload.kernels.Dim3;
import io.busload.kernels.Harness;
import io.busload.kernels.Poison;
import io.busload.kernels.Program;
import io.busload.kernels.RandomFloats;
import io.busload.kernels.Step;
import io.busload.kernels.Traffic;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.Test;

class TransposeTest {
  private final Transpose family = new Transpose();

  private Transpose.Case program(String kernel, long n) {
    return (Transpose.Case) Harness.program(family, kernel, n);
  }

  @Test
  void check_runOnCpuOutputOfEveryVariant_passes() {
    Harness.assertEveryVariantPasses(family, List.of(32L, 96L), n -> n * n);
  }

  @Test
  void runOnCpu_naive_writesTheTranspose() {
    Program p = program("transpose-naive", 64);
    try (Arena arena = Arena.ofShared()) {
      MemorySegment out = Harness.runOnCpu(p, arena).get(1);
      RandomFloats in = new RandomFloats(Families.SEED);
      assertThat(out.getAtIndex(JAVA_FLOAT, 3 * 64 + 5)).isEqualTo(in.get(5 * 64 + 3));
    }
  }

  @Test
  void check_corruptedOutput_failsWithFirstMismatches() {
    Program p = program("transpose-padded", 64);
    try (Arena arena = Arena.ofShared()) {
      List<MemorySegment> buffers = Harness.runOnCpu(p, arena);
      MemorySegment out = buffers.get(1);
      out.setAtIndex(JAVA_FLOAT, 1 * 64 + 2, 0.5f);
      out.setAtIndex(JAVA_FLOAT, 3 * 64 + 4, Float.intBitsToFloat(-1)); // never written: poison bytes
      Check check = p.check(buffers);
      assertThat(check.passed()).isFalse();
      assertThat(check.mismatchCount()).isEqualTo(2);
      float expected = new RandomFloats(Families.SEED).get(2 * 64 + 1);
      assertThat(check.mismatches().getFirst()).isEqualTo("out[1][2]: expected " + expected + ", got 0.5");
      assertThat(check.mismatches().get(1)).startsWith("out[3][4]: expected ").endsWith("got poison (never written)");
    }
  }

  @Test
  void check_poisonedOutput_failsEveryElement() {
    Program p = program("transpose-copy", 32);
    try (Arena arena = Arena.ofShared()) {
      List<MemorySegment> buffers = Harness.prepare(p, arena);
      assertThat(buffers.get(1).get(JAVA_FLOAT, 0)).isNaN();
      assertThat(Poison.BYTE).isEqualTo((byte) -1);
      assertThat(p.check(buffers).mismatchCount()).isEqualTo(32 * 32);
    }
  }

  @Test
  void traffic_n64_oneReadAndOneWriteOfEveryFloat() {
    Traffic t = program("transpose-tiled", 64).traffic();
    assertThat(t.bytesRead()).isEqualTo(64 * 64 * 4);
    assertThat(t.bytesWritten()).isEqualTo(64 * 64 * 4);
    assertThat(t.flops()).isZero();
  }

  @Test
  void coalescing_naive_loadsFourSectorsStoresThirtyTwo() {
    List<Coalescing> model = program("transpose-naive", 8192).coalescing();
    assertThat(model.get(0).store()).isFalse();
    assertThat(model.get(0).sectorsPerRequest()).isEqualTo(4);
    assertThat(model.get(1).store()).isTrue();
    assertThat(model.get(1).sectorsPerRequest()).isEqualTo(32);
    assertThat(model.get(1).linesPerRequest()).isEqualTo(32);
  }

  @Test
  void coalescing_copyTiledPadded_fourSectorsBothWays() {
    for (String kernel : List.of("transpose-copy", "transpose-tiled", "transpose-padded")) {
      assertThat(program(kernel, 8192).coalescing()).extracting(Coalescing::sectorsPerRequest).containsExactly(4, 4);
    }
  }

  @Test
  void bankConflicts_tiledVersusPadded_thirtyTwoWaysVersusNone() {
    assertThat(Transpose.Variant.TILED.bankConflictWays()).isEqualTo(32);
    assertThat(Transpose.Variant.PADDED.bankConflictWays()).isEqualTo(1);
    assertThat(Transpose.Variant.NAIVE.bankConflictWays()).isZero();
    assertThat(Transpose.Variant.TILED.staticSharedBytes()).isEqualTo(4096);
    assertThat(Transpose.Variant.PADDED.staticSharedBytes()).isEqualTo(4224);
  }

  @Test
  void steps_n8192_tilesOf32By8Threads() {
    Step.Kernel k = (Step.Kernel) program("transpose-tiled", 8192).steps().getFirst();
    assertThat(k.entryPoint()).isEqualTo("busload_transpose_tiled");
    assertThat(k.grid()).isEqualTo(Dim3.of(256, 256));
    assertThat(k.block()).isEqualTo(Dim3.of(32, 8));
    assertThat(k.sharedBytes()).isZero();
    assertThat(k.args()).containsExactly(Arg.buf(0), Arg.buf(1), Arg.i32(8192));
  }

  @Test
  void defaultSize_gpuAndCpu_aboveL2AndShrunkToTheBudget() {
    var kc = Harness.kernelCase(family, "transpose-copy");
    long gib = 1L << 30;
    assertThat(family.defaultSize(kc, new DeviceLimits("cuda", 80 * gib, 79 * gib, 50_000_000, 132))).isEqualTo(8192);
    assertThat(family.defaultSize(kc, new DeviceLimits("cuda", gib / 2, gib, 50_000_000, 132))).isEqualTo(4096);
    assertThat(family.defaultSize(kc, new DeviceLimits("cpu", 16 * gib, 8 * gib, 0, 2))).isEqualTo(4096);
  }

  @Test
  void program_sizeNotMultipleOf32_fails() {
    assertThatIllegalArgumentException().isThrownBy(() -> program("transpose-copy", 100))
        .withMessageStartingWith("size: must be a multiple of 32");
  }
}
