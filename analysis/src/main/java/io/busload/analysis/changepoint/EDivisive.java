package io.busload.analysis.changepoint;

import io.busload.analysis.stats.Robust;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * E-Divisive means (Matteson and James 2014) with a permutation test, for one series of values.
 *
 * <p>For a split of the values into A (before) and B (from the split on), the energy divergence
 * {@code E = 2 mean|a - b| - mean|a - a'| - mean|b - b'|} (exponent 1) is zero when both come from one distribution
 * and grows with any difference between them, in level or shape; {@code qHat = |A||B| / (|A| + |B|) * E} weighs it
 * by the sizes. The best split is the one with the largest {@code qHat}. It is a change point when
 * <ol>
 *   <li>it is significant: among random reorderings of the same values, fewer than {@code significance} of them
 *       reach as large a best {@code qHat} (the permutation test; it stops as soon as the answer is certain), and
 *   <li>it is a level shift worth naming: the medians of A and B differ by at least {@code minShiftSigmas} robust
 *       noise sigmas (and by {@code minRelativeShift} of the level). A change of shape only, such as noise that
 *       turns bimodal, is not a regression in a benchmark's median.
 * </ol>
 * Offline, {@link #detect} splits the whole series and then each part again (binary segmentation) until no
 * significant split is left. Permutations are seeded from the values themselves, so the same series always
 * gets the same answer.
 *
 * @see OnlineDetector for the check on each arrival
 */
public final class EDivisive {

  /**
   * @param minSegment fewest values on either side of a split (offline)
   * @param permutations most random reorderings per test; the smallest p-value it can show is 1 / (permutations + 1)
   * @param significance a split is significant when its p-value is at most this
   * @param minShiftSigmas the medians must differ by at least this many robust noise sigmas
   * @param minRelativeShift and by at least this fraction of the level before (0: no floor)
   */
  public record Settings(int minSegment, int permutations, double significance, double minShiftSigmas,
      double minRelativeShift) {
    public Settings {
      if (minSegment < 2) {
        throw new IllegalArgumentException("minSegment must be at least 2, was " + minSegment);
      }
      if (permutations < 19) {
        throw new IllegalArgumentException("permutations must be at least 19, was " + permutations);
      }
      if (!(significance > 0 && significance < 1)) {
        throw new IllegalArgumentException("significance must be between 0 and 1, was " + significance);
      }
      if (significance * (permutations + 1) < 1) {
        throw new IllegalArgumentException("significance " + significance + " cannot be reached with "
            + permutations + " permutations (the smallest p-value is 1/" + (permutations + 1) + ")");
      }
      if (minShiftSigmas < 0 || minRelativeShift < 0) {
        throw new IllegalArgumentException("minShiftSigmas and minRelativeShift must not be negative");
      }
    }

    /** The settings the evaluation in docs/results/2026-11-24-change-points chose (its README says why). */
    public static Settings defaults() {
      return new Settings(6, 999, 0.001, 2.0, 0.0);
    }
  }

  /** The best split of a stretch of values: {@code index} counts from the stretch's first value. */
  record Split(int index, double qHat) {}

  /** A permutation test's answer; {@code permutationsRun} is below the setting when it stopped early. */
  record Test(double pValue, boolean significant, int permutationsRun) {}

  private final Settings settings;

  public EDivisive(Settings settings) {
    this.settings = settings;
  }

  public Settings settings() {
    return settings;
  }

  /**
   * Every change point of the series, in order; none for a series shorter than two segments. Binary segmentation
   * on significance alone finds the structure; then each change whose neighbouring segments (up to the next
   * changes) fail the shift gate is dropped and its segments merged, the smallest shift first, until all that are
   * left pass. The gate looks at the final segments because one side of a split of a stretch holding two changes
   * (up, then down) is a mixture whose median says little.
   */
  public List<ChangePoint> detect(double[] series) {
    List<Integer> splits = new ArrayList<>();
    Deque<int[]> stretches = new ArrayDeque<>();
    stretches.push(new int[] {0, series.length});
    while (!stretches.isEmpty()) {
      int[] stretch = stretches.pop();
      double[] values = Arrays.copyOfRange(series, stretch[0], stretch[1]);
      Optional<Split> best = bestSplit(values, settings.minSegment(), settings.minSegment());
      if (best.isEmpty() || !permutationTest(values, settings.minSegment(), settings.minSegment(), best.get().qHat(),
          new SplittableRandom(Arrays.hashCode(values))).significant()) {
        continue;
      }
      int at = stretch[0] + best.get().index();
      splits.add(at);
      stretches.push(new int[] {stretch[0], at});
      stretches.push(new int[] {at, stretch[1]});
    }
    splits.sort(null);
    while (true) {
      int weakest = -1;
      double weakestShift = Double.POSITIVE_INFINITY;
      for (int i = 0; i < splits.size(); i++) {
        double[] before = Arrays.copyOfRange(series, i == 0 ? 0 : splits.get(i - 1), splits.get(i));
        double[] after = Arrays.copyOfRange(series, splits.get(i), i == splits.size() - 1 ? series.length
            : splits.get(i + 1));
        double shift = Math.abs(Robust.median(after) - Robust.median(before));
        if (!passesGate(before, after) && shift < weakestShift) {
          weakest = i;
          weakestShift = shift;
        }
      }
      if (weakest < 0) {
        break;
      }
      splits.remove(weakest);
    }
    List<ChangePoint> changes = new ArrayList<>();
    for (int i = 0; i < splits.size(); i++) {
      changes.add(describe(series, i == 0 ? 0 : splits.get(i - 1), splits.get(i),
          i == splits.size() - 1 ? series.length : splits.get(i + 1)));
    }
    return changes;
  }

  /** The change at {@code at} between the segments [from, at) and [at, to), with its p-value within them. */
  private ChangePoint describe(double[] series, int from, int at, int to) {
    double[] values = Arrays.copyOfRange(series, from, to);
    double[] before = Arrays.copyOfRange(series, from, at);
    double[] after = Arrays.copyOfRange(series, at, to);
    double mb = Robust.median(before);
    double ma = Robust.median(after);
    Optional<Split> best = bestSplit(values, before.length, after.length);
    double q = best.map(Split::qHat).orElse(0.0);
    Test test = permutationTest(values, Math.min(settings.minSegment(), before.length),
        Math.min(settings.minSegment(), after.length), q, new SplittableRandom(Arrays.hashCode(values)));
    return new ChangePoint(at, mb, ma, pooledSigma(before, mb, after, ma), q, test.pValue());
  }

  /**
   * The best split of {@code values} with at least {@code minBefore} values before it and {@code minAfter} from it
   * on, if it is a change point (significant and a large enough shift); its index counts within {@code values}.
   * The best split is looked for among all with at least 2 values after it, and must then have {@code minAfter}: a
   * large step is so found where it is, not at the earliest split the minimum allows (and waits until it has them).
   */
  Optional<ChangePoint> test(double[] values, int minBefore, int minAfter) {
    Optional<Split> best = bestSplit(values, minBefore, 2);
    if (best.isEmpty() || values.length - best.get().index() < minAfter) {
      return Optional.empty();
    }
    Split split = best.get();
    double[] before = Arrays.copyOfRange(values, 0, split.index());
    double[] after = Arrays.copyOfRange(values, split.index(), values.length);
    // The cheap gate first: most arrivals end here, without a single permutation.
    if (!passesGate(before, after)) {
      return Optional.empty();
    }
    Test test = permutationTest(values, minBefore, 2, split.qHat(), new SplittableRandom(Arrays.hashCode(values)));
    if (!test.significant()) {
      return Optional.empty();
    }
    double mb = Robust.median(before);
    double ma = Robust.median(after);
    return Optional.of(new ChangePoint(split.index(), mb, ma, pooledSigma(before, mb, after, ma), split.qHat(),
        test.pValue()));
  }

  /** Whether the medians differ by the settings' sigmas of pooled robust noise and by their fraction of the level. */
  boolean passesGate(double[] before, double[] after) {
    double mb = Robust.median(before);
    double ma = Robust.median(after);
    double shift = Math.abs(ma - mb);
    return shift > 0 && shift >= settings.minShiftSigmas() * pooledSigma(before, mb, after, ma)
        && shift >= settings.minRelativeShift() * Math.abs(mb);
  }

  /** The split with the largest qHat among those leaving enough values on each side; empty when none does. */
  static Optional<Split> bestSplit(double[] values, int minBefore, int minAfter) {
    int n = values.length;
    if (minBefore < 2 || minAfter < 2 || n < minBefore + minAfter) {
      return Optional.empty();
    }
    double[] qHat = new double[n];
    int best = maxSplit(values, minBefore, minAfter, new double[n], new double[n], qHat);
    return Optional.of(new Split(best, qHat[best]));
  }

  /**
   * Index of the split with the largest qHat, filling {@code qHat} for every allowed split. With {@code toEarlier[i]}
   * the summed distance from value i to the values before it and {@code toLater[i]} to those after, moving the split
   * one to the right moves one value's distances from B's within-sum to A's, so all splits cost O(n) after the O(n²)
   * pair sums.
   */
  private static int maxSplit(double[] v, int minBefore, int minAfter, double[] toEarlier, double[] toLater,
      double[] qHat) {
    int n = v.length;
    Arrays.fill(toEarlier, 0);
    Arrays.fill(toLater, 0);
    double total = 0;
    for (int i = 0; i < n; i++) {
      double vi = v[i];
      double row = 0;
      for (int j = i + 1; j < n; j++) {
        double d = Math.abs(vi - v[j]);
        row += d;
        toEarlier[j] += d;
      }
      toLater[i] = row;
      total += row;
    }
    double withinA = 0;
    double withinB = total;
    int best = -1;
    double bestQ = Double.NEGATIVE_INFINITY;
    for (int split = 1; split < n; split++) {
      withinA += toEarlier[split - 1];
      withinB -= toLater[split - 1];
      int m = split;
      int k = n - split;
      if (m < minBefore || k < minAfter) {
        continue;
      }
      double between = total - withinA - withinB;
      double energy = 2 * between / ((double) m * k) - 2 * withinA / ((double) m * (m - 1))
          - 2 * withinB / ((double) k * (k - 1));
      double q = (double) m * k / (m + k) * energy;
      qHat[split] = q;
      if (q > bestQ) {
        bestQ = q;
        best = split;
      }
    }
    return best;
  }

  /**
   * p = (1 + reorderings whose best qHat reaches the observed one) / (1 + reorderings run). It stops once that
   * count alone puts p above the significance: the decision is then certain, and most tests of an unchanged
   * series end within a few dozen reorderings.
   */
  Test permutationTest(double[] values, int minBefore, int minAfter, double observed, SplittableRandom random) {
    int n = values.length;
    double[] shuffled = values.clone();
    double[] toEarlier = new double[n];
    double[] toLater = new double[n];
    double[] qHat = new double[n];
    int limit = (int) Math.floor(settings.significance() * (settings.permutations() + 1)) - 1;
    int reached = 0;
    int run = 0;
    while (run < settings.permutations()) {
      for (int i = n - 1; i > 0; i--) {
        int j = random.nextInt(i + 1);
        double t = shuffled[i];
        shuffled[i] = shuffled[j];
        shuffled[j] = t;
      }
      int best = maxSplit(shuffled, minBefore, minAfter, toEarlier, toLater, qHat);
      run++;
      if (qHat[best] >= observed) {
        reached++;
        if (reached > limit) {
          return new Test((1.0 + reached) / (1.0 + run), false, run);
        }
      }
    }
    return new Test((1.0 + reached) / (1.0 + run), true, run);
  }

  /** 1.4826 x the median absolute deviation of every value from its own segment's median. */
  static double pooledSigma(double[] before, double medianBefore, double[] after, double medianAfter) {
    double[] deviations = new double[before.length + after.length];
    for (int i = 0; i < before.length; i++) {
      deviations[i] = Math.abs(before[i] - medianBefore);
    }
    for (int i = 0; i < after.length; i++) {
      deviations[before.length + i] = Math.abs(after[i] - medianAfter);
    }
    return Robust.MAD_TO_SIGMA * Robust.median(deviations);
  }
}
