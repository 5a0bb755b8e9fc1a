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

class ReductionTest {
  private final Reduction family = new Reduction();

  @Test
  void check_runOnCpuOutputOfEveryVariant_passes() {
    Harness.assertEveryVariantPasses(family, List.of(1L, 255L, 100_000L, 3_000_001L), n -> 1);
  }

  @Test
  void runOnCpu_interleavedAndStrided_sameBitsBecauseTheyAddTheSamePairs() {
    try (Arena arena = Arena.ofShared()) {
      float interleaved = Harness.runOnCpu(program(Reduction.Variant.INTERLEAVED, 70_000), arena).get(2)
          .getAtIndex(JAVA_FLOAT, 0);
      float strided = Harness.runOnCpu(program(Reduction.Variant.STRIDED, 70_000), arena).get(2)
          .getAtIndex(JAVA_FLOAT, 0);
      assertThat(Float.floatToRawIntBits(strided)).isEqualTo(Float.floatToRawIntBits(interleaved));
      double exact = 0;
      for (int i = 0; i < 70_000; i++) {
        exact += Reduction.input(i);
      }
      assertThat((double) interleaved).isCloseTo(exact, org.assertj.core.data.Offset.offset(1e-3));
    }
  }

  @Test
  void check_resultOffByTheSmallestStep_failsWithTheBound() {
    Program p = program(Reduction.Variant.SHUFFLE, 100_000);
    try (Arena arena = Arena.ofShared()) {
      List<MemorySegment> buffers = Harness.runOnCpu(p, arena);
      float good = buffers.get(2).getAtIndex(JAVA_FLOAT, 0);
      buffers.get(2).setAtIndex(JAVA_FLOAT, 0, good + 1.0f);
      Check check = p.check(buffers);
      assertThat(check.mismatchCount()).isEqualTo(1);
      assertThat(check.mismatches().getFirst()).startsWith("out[0]: expected ").contains("rounding errors");

      assertThat(p.check(Harness.prepare(p, arena)).mismatches().getFirst()).endsWith("got poison (never written)");
    }
  }

  @Test
  void input_mixedSignsEightFractionBits_neverZero() {
    int negative = 0;
    for (long i = 0; i < 10_000; i++) {
      float x = Reduction.input(i);
      assertThat(Math.abs(x)).isBetween(1.0f, 1.99609375f);
      assertThat(x * 256.0f).isEqualTo((float) Math.rint(x * 256.0f));
      negative += x < 0 ? 1 : 0;
    }
    assertThat(negative).isBetween(4_500, 5_500);
  }

  @Test
  void check_droppingAnyOneBlock_failsForEveryVariant() {
    long n = (1 << 16) + 300; // a partial last block too
    for (Reduction.Variant v : Reduction.Variant.ALL) {
      Reduction.Case p = program(v, n);
      assertThat(p.replay(null).bound()).as(v.kernel() + " bound").isLessThan(1.0);
      try (Arena arena = Arena.ofShared()) {
        List<MemorySegment> buffers = Harness.prepare(p, arena);
        for (long block = 0; block < p.blocks(); block++) {
          buffers.get(2).setAtIndex(JAVA_FLOAT, 0, p.replay(block).sum());
          assertThat(p.check(buffers).passed()).as(v.kernel() + " without block " + block).isFalse();
        }
      }
    }
  }

  @Test
  void replay_largeSize_boundFarBelowOneBlock() {
    // A block of 256 mixed-sign elements sums to about 24 in magnitude; the bound must stay well under that.
    Reduction.Case p = program(Reduction.Variant.SEQUENTIAL, 1 << 24);
    assertThat(p.replay(null).bound()).isLessThan(0.5);
  }

  @Test
  void traffic_n1000_everyInputOnceOneResultNMinusOneAdds() {
    Traffic t = program(Reduction.Variant.INTERLEAVED, 1000).traffic();
    assertThat(t.bytesRead()).isEqualTo(4000);
    assertThat(t.bytesWritten()).isEqualTo(4);
    assertThat(t.flops()).isEqualTo(999);
  }

  @Test
  void coalescing_everyVariant_loadsFourSectorsSingleThreadStoresOne() {
    for (Reduction.Variant v : Reduction.Variant.ALL) {
      List<Coalescing> model = program(v, 1 << 27).coalescing();
      assertThat(model).extracting(Coalescing::sectorsPerRequest).containsExactly(4, 1, 4, 1);
      assertThat(model.get(1).requestedBytesPerRequest()).isEqualTo(4);
      assertThat(model.get(0).efficiency()).isEqualTo(1.0);
    }
  }

  @Test
  void steps_twoLaunchesPartialsThenFinal() {
    List<Step> steps = program(Reduction.Variant.STRIDED, 1 << 27).steps();
    Step.Kernel first = (Step.Kernel) steps.get(0);
    Step.Kernel last = (Step.Kernel) steps.get(1);
    assertThat(first.entryPoint()).isEqualTo("busload_reduction_strided");
    assertThat(first.grid()).isEqualTo(Dim3.of(1 << 19));
    assertThat(first.args()).containsExactly(Arg.buf(0), Arg.buf(1), Arg.i64(1 << 27));
    assertThat(last.entryPoint()).isEqualTo(Reduction.FINAL_ENTRY_POINT);
    assertThat(last.grid()).isEqualTo(Dim3.of(1));
    assertThat(last.block()).isEqualTo(Dim3.of(256));
    assertThat(last.args()).containsExactly(Arg.buf(1), Arg.buf(2), Arg.i32(1 << 19));
  }

  @Test
  void blocks_shuffle_cappedGridStride() {
    assertThat(program(Reduction.Variant.SHUFFLE, 1 << 27).blocks()).isEqualTo(1024);
    assertThat(program(Reduction.Variant.SHUFFLE, 5000).blocks()).isEqualTo(5);
    assertThat(program(Reduction.Variant.SHUFFLE, 1 << 27).buffers().get(1).elements()).isEqualTo(1024);
  }

  @Test
  void warpSum_butterfly_everyLaneAddedOnce() {
    float[] lanes = new float[32];
    for (int i = 0; i < 32; i++) {
      lanes[i] = i + 1;
    }
    assertThat(Reduction.warpSum(lanes)).isEqualTo(528.0f);
    float[] block = new float[Reduction.BLOCK];
    java.util.Arrays.fill(block, 1.0f);
    assertThat(Reduction.blockSum(block)).isEqualTo(256.0f);
  }

  private Reduction.Case program(Reduction.Variant variant, long n) {
    return Harness.program(family, variant, n);
  }
}
