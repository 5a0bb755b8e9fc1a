package io.busload.kernels.matmul;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import io.busload.kernels.Check;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

/**
 * The matmul reference check. Recomputing all of C in double is 2 n^3 operations (137 GFLOP at n = 4096,
 * minutes in Java), so it checks in three parts, all O(n^2):
 * <ol>
 *   <li>every element of C is finite: an element no thread wrote still holds the poison (a NaN);</li>
 *   <li>sampled elements equal a double-precision dot product within {@link #tolerance}: the whole first and
 *       last row, the whole last column (edges of the grid) and {@link #RANDOM_SAMPLES} seeded random elements;</li>
 *   <li>all of C, by Freivalds' test: for {@link #VECTORS} random sign vectors x, each row of C x equals the same
 *       row of A (B x), computed in double, within {@link #rowTolerance}. A wrong 32 x 32 tile (stale, zero, from
 *       the wrong k range) fails it wherever it lies; sampling alone caught one about 22% of the time.</li>
 * </ol>
 * {@link Check#checked()} counts the elements of C, all of which the third part covers.
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
  /** Random sign vectors of Freivalds' test: a wrong row escapes one with probability at most 1/2. */
  public static final int VECTORS = 3;
  /** How often a correct C may fail Freivalds' test at most, over all its rows and vectors. */
  static final double FALSE_ALARM = 1e-9;
  /** fp32 unit roundoff. */
  static final double UNIT_ROUNDOFF = 0x1p-24;
  private static final long SAMPLE_SEED = 0x5A3B_1E00L;

  private MatmulReference() {}

  /** Allowed |C - reference| for a dot product of {@code n} terms whose |products| sum to {@code absSum}. */
  public static double tolerance(long n, double absSum) {
    return (2 + Math.min(n, 8 * Math.sqrt(n))) * UNIT_ROUNDOFF * absSum;
  }

  /**
   * Allowed |(C x)_i - (A (B x))_i| for a random sign vector x. The element errors e_ij of a correct C are at most
   * t_ij = {@link #tolerance}(n, S_ij) with S_ij = sum_k |a_ik b_kj|, and x is drawn independently of them, so by
   * Hoeffding's inequality |sum_j e_ij x_j| exceeds {@code lambda sqrt(sum_j t_ij^2)} with probability at most
   * {@code 2 exp(-lambda^2 / 2)}; lambda is chosen for {@link #FALSE_ALARM} over every row and vector. sum_j t_ij^2
   * is bounded in O(n) per row by {@code max_j t_ij * sum_j t_ij}, from {@code maxRow = sum_k |a_ik| max_j |b_kj|}
   * and {@code sumRow = sum_k |a_ik| sum_j |b_kj|}. The last term covers the double-precision reference's own
   * rounding.
   */
  static double rowTolerance(long n, double maxRow, double sumRow) {
    double lambda = Math.sqrt(2 * Math.log(2.0 * n * VECTORS / FALSE_ALARM));
    return lambda * tolerance(n, Math.sqrt(maxRow * sumRow)) + 4 * n * 0x1p-53 * sumRow;
  }

  /** Checks {@code c} against {@code a x b}, all {@code n x n} row-major fp32 host copies. */
  public static Check check(MemorySegment a, MemorySegment b, MemorySegment c, int n) {
    Check.Collector collector = new Check.Collector();
    Set<Integer> reported = java.util.concurrent.ConcurrentHashMap.newKeySet();
    long elements = (long) n * n;
    // Rows with an element never written, in parallel; then the first few reported in order.
    IntStream.range(0, n).parallel().forEach(i -> {
      for (long j = 0; j < n; j++) {
        if (!Float.isFinite(c.getAtIndex(JAVA_FLOAT, (long) i * n + j))) {
          reported.add(i);
          return;
        }
      }
    });
    reported.stream().sorted().forEach(i -> {
      for (long j = 0; j < n; j++) {
        float value = c.getAtIndex(JAVA_FLOAT, (long) i * n + j);
        if (!Float.isFinite(value)) {
          long column = j;
          collector.mismatch(() -> "C[" + i + "][" + column + "]: expected a finite value, got " + describe(value));
        }
      }
    });
    sampled(a, b, c, n, collector, reported);
    freivalds(a, b, c, n, collector, reported);
    collector.checked(elements);
    return collector.result();
  }

  /** Part 2: the edges and seeded random elements against double-precision dot products. */
  private static void sampled(MemorySegment a, MemorySegment b, MemorySegment c, int n, Check.Collector collector,
      Set<Integer> reported) {
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
    // working set is one B row plus a cache line per sampled row, not a stride-n walk down B per sample. The
    // samples are split among threads, each walking k for its own.
    int parts = Math.max(1, Math.min(Runtime.getRuntime().availableProcessors(), rows.length / 256));
    IntStream.range(0, parts).parallel().forEach(p -> {
      int from = rows.length * p / parts;
      int to = rows.length * (p + 1) / parts;
      for (long k = 0; k < n; k++) {
        long bRow = k * n;
        for (int t = from; t < to; t++) {
          double product = (double) a.getAtIndex(JAVA_FLOAT, (long) rows[t] * n + k)
              * b.getAtIndex(JAVA_FLOAT, bRow + cols[t]);
          sum[t] += product;
          absSum[t] += Math.abs(product);
        }
      }
    });
    for (int t = 0; t < rows.length; t++) {
      float actual = c.getAtIndex(JAVA_FLOAT, (long) rows[t] * n + cols[t]);
      if (!Float.isFinite(actual)) {
        continue; // counted by the scan above
      }
      double tolerance = tolerance(n, absSum[t]);
      if (!(Math.abs(actual - sum[t]) <= tolerance)) {
        collector.mismatch(String.format(Locale.ROOT, "C[%d][%d]: expected %.9g (+-%.3g), got %s",
            rows[t], cols[t], sum[t], tolerance, Float.toString(actual)));
        reported.add(rows[t]);
      }
    }
  }

  /** Part 3: Freivalds' test of every row not already reported, in O(n^2) per vector. */
  private static void freivalds(MemorySegment a, MemorySegment b, MemorySegment c, int n, Check.Collector collector,
      Set<Integer> reported) {
    double[][] x = new double[VECTORS][n];
    SplittableRandom random = new SplittableRandom(SAMPLE_SEED ^ n);
    for (double[] vector : x) {
      for (int j = 0; j < n; j++) {
        vector[j] = random.nextBoolean() ? 1.0 : -1.0;
      }
    }
    double[][] bx = new double[VECTORS][n];
    double[] bMax = new double[n];
    double[] bSum = new double[n];
    IntStream.range(0, n).parallel().forEach(k -> {
      double[] dots = dots(b, k, n, x);
      for (int r = 0; r < VECTORS; r++) {
        bx[r][k] = dots[r];
      }
      for (int j = 0; j < n; j++) {
        double v = Math.abs(b.getAtIndex(JAVA_FLOAT, (long) k * n + j));
        bMax[k] = Math.max(bMax[k], v);
        bSum[k] += v;
      }
    });
    List<String> failures = IntStream.range(0, n).parallel().filter(i -> !reported.contains(i)).mapToObj(i -> {
      double[] abx = dots(a, i, n, bx);
      double[] cx = dots(c, i, n, x);
      double maxRow = 0;
      double sumRow = 0;
      for (int k = 0; k < n; k++) {
        double v = Math.abs(a.getAtIndex(JAVA_FLOAT, (long) i * n + k));
        maxRow += v * bMax[k];
        sumRow += v * bSum[k];
      }
      double tolerance = rowTolerance(n, maxRow, sumRow);
      for (int r = 0; r < VECTORS; r++) {
        if (!(Math.abs(cx[r] - abx[r]) <= tolerance)) {
          return String.format(Locale.ROOT, "C[%d][*]: row %d of C x is %.9g, of A (B x) %.9g (+-%.3g; random sign "
              + "vector %d of %d, Freivalds' test): an element of the row is wrong", i, i, cx[r], abx[r], tolerance,
              r + 1, VECTORS);
        }
      }
      return null;
    }).filter(java.util.Objects::nonNull).toList();
    failures.forEach(collector::mismatch);
  }

  /** Row {@code row} of the n x n matrix {@code m} dotted with each of {@code vectors}, in double. */
  private static double[] dots(MemorySegment m, int row, int n, double[][] vectors) {
    double[] dots = new double[vectors.length];
    for (int j = 0; j < n; j++) {
      double v = m.getAtIndex(JAVA_FLOAT, (long) row * n + j);
      for (int r = 0; r < vectors.length; r++) {
        dots[r] += v * vectors[r][j];
      }
    }
    return dots;
  }

  private static String describe(float value) {
    return Float.floatToRawIntBits(value) == -1 ? "poison (never written)" : Float.toString(value);
  }
}
