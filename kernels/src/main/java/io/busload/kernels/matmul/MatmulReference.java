package io.busload.kernels.matmul;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import io.busload.kernels.Check;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;

/**
 * The matmul reference check. Recomputing all of C in double is 2 n^3 operations (137 GFLOP at n = 4096,
 * minutes in Java), so it checks in two parts:
 * <ol>
 *   <li>every element of C is finite: an element no thread wrote still holds the poison (a NaN);</li>
 *   <li>sampled elements equal a double-precision dot product within a tolerance fit for an fp32 sum of n terms:
 *       the whole first and last row, the whole last column (edges of the grid) and {@link #RANDOM_SAMPLES}
 *       seeded random elements.</li>
 * </ol>
 * {@link Check#checked()} counts the sampled elements compared with the reference.
 *
 * <p>Tolerance: an fp32 sum of n products carries at most about {@code n u sum|a b|} rounding error
 * ({@code u = 2^-24}, Higham's bound), and in practice about {@code sqrt(n) u sum|a b| / 3} since the roundings
 * are as often up as down. {@link #tolerance} allows {@code (2 + min(n, 8 sqrt(n))) u sum|a b|}: the worst-case
 * bound for small n, more than 20 standard deviations of the typical error for large ones, and at n = 4096 still
 * 8 times tighter than one missing product (a skipped k is an error of about {@code sum|a b| / n}).
 */
public final class MatmulReference {
  /** Random elements compared besides the edges. */
  public static final int RANDOM_SAMPLES = 4096;
  /** fp32 unit roundoff. */
  static final double UNIT_ROUNDOFF = 0x1p-24;
  private static final long SAMPLE_SEED = 0x5A3B_1E00L;

  private MatmulReference() {}

  /** Allowed |C - reference| for a dot product of {@code n} terms whose |products| sum to {@code absSum}. */
  public static double tolerance(long n, double absSum) {
    return (2 + Math.min(n, 8 * Math.sqrt(n))) * UNIT_ROUNDOFF * absSum;
  }

  /** Checks {@code c} against {@code a x b}, all {@code n x n} row-major fp32 host copies. */
  public static Check check(MemorySegment a, MemorySegment b, MemorySegment c, int n) {
    Check.Collector collector = new Check.Collector();
    long elements = (long) n * n;
    for (long i = 0; i < elements; i++) {
      float value = c.getAtIndex(JAVA_FLOAT, i);
      if (!Float.isFinite(value)) {
        collector.mismatch("C[" + i / n + "][" + i % n + "]: expected a finite value, got " + describe(value));
      }
    }
    int edges = n == 1 ? 1 : 3 * n - 2; // first row, last row, last column between them
    int[] rows = new int[edges + RANDOM_SAMPLES];
    int[] cols = new int[rows.length];
    int s = 0;
    for (int j = 0; j < n; j++) {
      rows[s] = 0;
      cols[s++] = j;
    }
    for (int j = 0; j < n && n > 1; j++) {
      rows[s] = n - 1;
      cols[s++] = j;
    }
    for (int i = 1; i < n - 1; i++) {
      rows[s] = i;
      cols[s++] = n - 1;
    }
    SplittableRandom random = new SplittableRandom(SAMPLE_SEED + n);
    while (s < rows.length) {
      rows[s] = random.nextInt(n);
      cols[s++] = random.nextInt(n);
    }
    double[] sum = new double[rows.length];
    double[] absSum = new double[rows.length];
    // k outermost: row k of B is read contiguously and each sample's A row advances one float per k, so the
    // working set is one B row plus a cache line per sampled row, not a stride-n walk down B per sample.
    for (long k = 0; k < n; k++) {
      long bRow = k * n;
      for (int t = 0; t < rows.length; t++) {
        double product = (double) a.getAtIndex(JAVA_FLOAT, (long) rows[t] * n + k) * b.getAtIndex(JAVA_FLOAT, bRow + cols[t]);
        sum[t] += product;
        absSum[t] += Math.abs(product);
      }
    }
    for (int t = 0; t < rows.length; t++) {
      float actual = c.getAtIndex(JAVA_FLOAT, (long) rows[t] * n + cols[t]);
      if (!Float.isFinite(actual)) {
        continue; // counted by the scan above
      }
      double tolerance = tolerance(n, absSum[t]);
      if (!(Math.abs(actual - sum[t]) <= tolerance)) {
        collector.mismatch(String.format(java.util.Locale.ROOT, "C[%d][%d]: expected %.9g (+-%.3g), got %s",
            rows[t], cols[t], sum[t], tolerance, Float.toString(actual)));
      }
    }
    collector.checked(rows.length);
    return collector.result();
  }

  private static String describe(float value) {
    return Float.floatToRawIntBits(value) == -1 ? "poison (never written)" : Float.toString(value);
  }
}
