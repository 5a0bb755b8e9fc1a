package io.busload.kernels.matmul;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static org.assertj.core.api.Assertions.assertThat;

import io.busload.kernels.Check;
import io.busload.kernels.Harness;
import io.busload.kernels.Parallel;
import io.busload.kernels.RandomFloats;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** The sampled double-precision check and its tolerance. */
class MatmulReferenceTest {

  @Test
  void check_unwrittenElement_reportedAsPoison() {
    Check check = checkAfter(Matmul.Variant.NAIVE, 64,
        buffers -> buffers.get(2).setAtIndex(JAVA_FLOAT, 5 * 64 + 7, Float.intBitsToFloat(-1)));

    assertThat(check.passed()).isFalse();
    assertThat(check.mismatches()).first().isEqualTo("C[5][7]: expected a finite value, got poison (never written)");
  }

  @Test
  void check_oneProductMissingInALastRowElement_mismatch() {
    int n = 256;
    Check check = checkAfter(Matmul.Variant.COALESCED, n, buffers -> dropLastProduct(buffers, n, n - 1, 3));

    assertThat(check.mismatchCount()).isEqualTo(1);
    assertThat(check.mismatches().getFirst()).startsWith("C[255][3]: expected ");
  }

  @Test
  void check_oneTileOneProductShort_everyRowOfItFlagged() {
    int n = 512;
    // Tile (5, 7) as a kernel whose k loop stopped one short there would leave it: each element off by one
    // product (about 2.25 in some 1,100), which sampling sees only where it happens to pick one of them.
    Check check = checkAfter(Matmul.Variant.COALESCED, n, buffers -> {
      for (int i = 5 * 32; i < 6 * 32; i++) {
        for (int j = 7 * 32; j < 8 * 32; j++) {
          dropLastProduct(buffers, n, i, j);
        }
      }
    });

    // Sampling alone lands on about 16 of the tile's 1,024 elements; Freivalds' test flags every other row of it.
    assertThat(check.mismatchCount()).isGreaterThanOrEqualTo(32);
    assertThat(check.mismatches()).allMatch(m -> m.matches("C\\[(1[6-8][0-9]|19[01])\\].*"));
  }

  @Test
  void tolerance_fp32FmaSumsOf4096Terms_withinAQuarterOfIt() {
    // What the GPU kernels do: acc = fma(a, b, acc) over k, inputs as the family fills them.
    int n = 4096;
    RandomFloats a = Matmul.input(Matmul.A);
    RandomFloats b = Matmul.input(Matmul.B);
    SplittableRandom random = new SplittableRandom(7);
    double worst = 0;
    for (int sample = 0; sample < 64; sample++) {
      long row = random.nextInt(n);
      long col = random.nextInt(n);
      float acc = 0;
      double exact = 0;
      double abs = 0;
      for (long k = 0; k < n; k++) {
        float x = a.get(row * n + k);
        float y = b.get(k * n + col);
        acc = Math.fma(x, y, acc);
        exact += (double) x * y;
        abs += Math.abs((double) x * y);
      }
      worst = Math.max(worst, Math.abs(acc - exact) / MatmulReference.tolerance(n, abs));
    }
    assertThat(worst).isLessThan(0.25);
  }

  @Test
  void tolerance_n4096_tighterThanOneMissingProduct() {
    // Products lie in [1, 4): one missing is at least sum / (4 n) of the sum.
    double sum = 4096 * 2.25;
    assertThat(MatmulReference.tolerance(4096, sum)).isLessThan(sum / (4 * 4096));
  }

  /** The check of a CPU run of {@code variant} at size {@code n} whose buffers {@code damage} changed afterwards. */
  private static Check checkAfter(Matmul.Variant variant, int n, Consumer<List<MemorySegment>> damage) {
    try (Arena arena = Arena.ofShared()) {
      Matmul.Case program = MatmulTest.program(variant, n);
      List<MemorySegment> buffers = Harness.prepare(program, arena);
      program.runOnCpu(buffers, Parallel.serial());
      damage.accept(buffers);
      return program.check(buffers);
    }
  }

  /** C[i][j] as a kernel whose k loop stopped one short would leave it. */
  private static void dropLastProduct(List<MemorySegment> buffers, int n, long i, long j) {
    long at = i * n + j;
    buffers.get(2).setAtIndex(JAVA_FLOAT, at, buffers.get(2).getAtIndex(JAVA_FLOAT, at)
        - buffers.get(0).getAtIndex(JAVA_FLOAT, i * n + n - 1) * buffers.get(1).getAtIndex(JAVA_FLOAT, (long) (n - 1) * n + j));
  }
}
