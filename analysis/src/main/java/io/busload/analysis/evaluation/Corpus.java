package io.busload.analysis.evaluation;

import io.busload.analysis.evaluation.LabelledSeries.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The labelled corpus, made from one seed: the same seed gives the same series, value for value.
 *
 * <ul>
 *   <li>steps of 0.5, 1, 2, 3, 5 and 10% (up or down at random) in Gaussian noise of 0.1, 0.3, 1 and 3%, 120 values
 *       with the step at a random index from 50 to 79;
 *   <li>slow drifts of 2, 5 and 10% spread linearly over the last 100 of 150 values, in 0.3 and 1% noise;
 *   <li>single outliers of -30, -10 and +10% at a random index from 40 on, in each noise;
 *   <li>bimodal noise: one value in five from a second mode 2 or 4% lower (a card that sometimes boosts less),
 *       in 0.3% noise, 200 values;
 *   <li>stationary noise of each level, 400 values a series.
 * </ul>
 */
public final class Corpus {
  public static final double[] NOISES = {0.001, 0.003, 0.01, 0.03};
  public static final double[] STEPS = {0.005, 0.01, 0.02, 0.03, 0.05, 0.10};
  /** Drifts start here and move by a hundredth of their total per value. */
  public static final int DRIFT_ONSET = 50;
  /** The level every series moves around; only ratios matter. */
  static final double LEVEL = 1000;

  private Corpus() {}

  /** @param perCell series per combination of kind, noise and size */
  public static List<LabelledSeries> generate(long seed, int perCell) {
    SplittableRandom random = new SplittableRandom(seed);
    List<LabelledSeries> corpus = new ArrayList<>();
    for (double noise : NOISES) {
      for (double step : STEPS) {
        for (int i = 0; i < perCell; i++) {
          double signed = random.nextBoolean() ? step : -step;
          int at = 50 + random.nextInt(30);
          double[] x = noise(random, 120, noise);
          for (int t = at; t < x.length; t++) {
            x[t] += LEVEL * signed;
          }
          corpus.add(new LabelledSeries(Kind.STEP, noise, signed, List.of(at), 0, x));
        }
      }
    }
    for (double noise : new double[] {0.003, 0.01}) {
      for (double drift : new double[] {0.02, 0.05, 0.10}) {
        for (int i = 0; i < perCell; i++) {
          double signed = random.nextBoolean() ? drift : -drift;
          double[] x = noise(random, 150, noise);
          for (int t = DRIFT_ONSET; t < x.length; t++) {
            x[t] += LEVEL * signed * (t - DRIFT_ONSET + 1) / 100.0;
          }
          corpus.add(new LabelledSeries(Kind.DRIFT, noise, signed, List.of(), DRIFT_ONSET, x));
        }
      }
    }
    for (double noise : NOISES) {
      for (double size : new double[] {-0.30, -0.10, 0.10}) {
        for (int i = 0; i < perCell; i++) {
          double[] x = noise(random, 150, noise);
          x[40 + random.nextInt(110)] += LEVEL * size;
          corpus.add(new LabelledSeries(Kind.OUTLIER, noise, size, List.of(), 0, x));
        }
      }
    }
    for (double offset : new double[] {-0.02, -0.04}) {
      for (int i = 0; i < perCell; i++) {
        double[] x = noise(random, 200, 0.003);
        for (int t = 0; t < x.length; t++) {
          if (random.nextInt(5) == 0) {
            x[t] += LEVEL * offset;
          }
        }
        corpus.add(new LabelledSeries(Kind.BIMODAL, 0.003, offset, List.of(), 0, x));
      }
    }
    for (double noise : NOISES) {
      for (int i = 0; i < perCell; i++) {
        corpus.add(new LabelledSeries(Kind.STATIONARY, noise, 0, List.of(), 0, noise(random, 400, noise)));
      }
    }
    return corpus;
  }

  private static double[] noise(SplittableRandom random, int n, double sigma) {
    double[] x = new double[n];
    for (int i = 0; i < n; i++) {
      x[i] = LEVEL * (1 + sigma * gaussian(random));
    }
    return x;
  }

  /** Box-Muller: SplittableRandom has no nextGaussian, and this keeps the corpus the same on every JDK. */
  public static double gaussian(SplittableRandom random) {
    return Math.sqrt(-2 * Math.log(1 - random.nextDouble())) * Math.cos(2 * Math.PI * random.nextDouble());
  }
}
