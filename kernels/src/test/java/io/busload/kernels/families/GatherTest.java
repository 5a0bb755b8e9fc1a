package io.busload.kernels.families;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;

import io.busload.kernels.Arg;
import io.busload.kernels.Check;
import io.busload.kernels.Coalescing;
import io.busload.kernels.Dim3;
import io.busload.kernels.Harness;
import io.busload.kernels.Program;
import io.busload.kernels.RandomFloats;
import io.busload.kernels.Step;
import io.busload.kernels.Traffic;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.BitSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

class GatherTest {
  private final Gather family = new Gather();

  @Test
  void check_runOnCpuOutputOfEveryVariant_passes() {
    Harness.assertEveryVariantPasses(family, List.of(32L, 1000L, 4096L), n -> n);
  }

  @Test
  void permutation_severalSizes_everyIndexExactlyOnce() {
    for (long n : List.of(1L, 2L, 3L, 31L, 1000L, 65_536L, 100_003L)) {
      Permutation p = new Permutation(n, 99);
      BitSet seen = new BitSet();
      for (long i = 0; i < n; i++) {
        long j = p.apply(i);
        assertThat(j).isBetween(0L, n - 1);
        seen.set((int) j);
      }
      assertThat(seen.cardinality()).as("n=%d", n).isEqualTo((int) n);
    }
    assertThat(new Permutation(1000, 1).apply(0)).isNotEqualTo(new Permutation(1000, 2).apply(0));
  }

  @Test
  void fill_sortedAndRandom_identityAndAShuffle() {
    try (Arena arena = Arena.ofShared()) {
      MemorySegment sorted = Harness.prepare(program(Gather.Variant.GATHER_SORTED, 4096), arena).get(1);
      MemorySegment random = Harness.prepare(program(Gather.Variant.SCATTER_RANDOM, 4096), arena).get(1);
      int fixed = 0;
      for (int i = 0; i < 4096; i++) {
        assertThat(sorted.getAtIndex(JAVA_INT, i)).isEqualTo(i);
        fixed += random.getAtIndex(JAVA_INT, i) == i ? 1 : 0;
      }
      assertThat(fixed).isLessThan(10); // a random permutation fixes about one element
    }
  }

  @Test
  void check_corruptedOutput_failsWithFirstMismatches() {
    Gather.Case p = program(Gather.Variant.SCATTER_RANDOM, 1024);
    try (Arena arena = Arena.ofShared()) {
      List<MemorySegment> buffers = Harness.runOnCpu(p, arena);
      long j = p.index(10);
      buffers.get(2).setAtIndex(JAVA_FLOAT, j, 3.0f);
      Check check = p.check(buffers);
      assertThat(check.mismatchCount()).isEqualTo(1);
      float expected = new RandomFloats(Families.SEED).get(10);
      assertThat(check.mismatches()).containsExactly("out[" + j + "]: expected " + expected + ", got 3.0");

      Program gather = program(Gather.Variant.GATHER_RANDOM, 1024);
      List<MemorySegment> poisoned = Harness.prepare(gather, arena);
      Check none = gather.check(poisoned);
      assertThat(none.mismatchCount()).isEqualTo(1024);
      assertThat(none.mismatches()).hasSize(Check.REPORTED).allMatch(m -> m.endsWith("got poison (never written)"));
    }
  }

  @Test
  void traffic_n1024_eightBytesReadFourWrittenPerElement() {
    Traffic t = program(Gather.Variant.GATHER_RANDOM, 1024).traffic();
    assertThat(t.bytesRead()).isEqualTo(1024 * 8);
    assertThat(t.bytesWritten()).isEqualTo(1024 * 4);
    assertThat(t.flops()).isZero();
  }

  static final List<Gather.Variant> SORTED = List.of(Gather.Variant.GATHER_SORTED, Gather.Variant.SCATTER_SORTED);

  @ParameterizedTest
  @FieldSource("SORTED")
  void coalescing_sorted_fourSectorsEverywhere(Gather.Variant variant) {
    assertThat(program(variant, 1 << 20).coalescing()).extracting(Coalescing::sectorsPerRequest).containsOnly(4);
  }

  @Test
  void coalescing_randomLargeN_aboutThirtyTwoSectorsOnTheIndexedSide() {
    Gather.Case gather = program(Gather.Variant.GATHER_RANDOM, 1 << 26);
    List<Coalescing> model = gather.coalescing();
    assertThat(model).extracting(Coalescing::access).containsExactly("load idx", "load in[idx]", "store out");
    assertThat(model).extracting(Coalescing::sectorsPerRequest).containsExactly(4, 32, 4);
    assertThat(gather.indexedSideMeans()[0]).isBetween(31.9, 32.0);

    List<Coalescing> scatter = program(Gather.Variant.SCATTER_RANDOM, 1 << 26).coalescing();
    assertThat(scatter.getLast().access()).isEqualTo("store out[idx]");
    assertThat(scatter.getLast().store()).isTrue();
    assertThat(scatter.getLast().sectorsPerRequest()).isEqualTo(32);
  }

  @Test
  void coalescing_randomSmallN_fewerSectorsAsLanesShareThem() {
    // 64 elements are 8 sectors: a warp's 32 random indices cannot touch more than 8.
    Gather.Case small = program(Gather.Variant.GATHER_RANDOM, 64);
    assertThat(small.indexedSideMeans()[0]).isBetween(6.0, 8.0);
  }

  @Test
  void steps_n2pow26_fourElementsPerThread() {
    Step.Kernel k = (Step.Kernel) program(Gather.Variant.SCATTER_SORTED, 1 << 26).steps().getFirst();
    assertThat(k.entryPoint()).isEqualTo("busload_gather_scatter_f32");
    assertThat(k.grid()).isEqualTo(Dim3.of(1 << 16));
    assertThat(k.block()).isEqualTo(Dim3.of(256));
    assertThat(k.args()).containsExactly(Arg.buf(0), Arg.buf(1), Arg.buf(2), Arg.i64(1 << 26));
  }

  private Gather.Case program(Gather.Variant variant, long n) {
    return Harness.program(family, variant, n);
  }
}
