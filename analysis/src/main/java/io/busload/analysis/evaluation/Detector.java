package io.busload.analysis.evaluation;

import io.busload.analysis.changepoint.EDivisive;
import io.busload.analysis.changepoint.OnlineDetector;
import io.busload.analysis.changepoint.RobustZScore;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.IntPredicate;

/** A change detector fed a series one value at a time, as the coordinator sees results arrive. */
public interface Detector {
  String name();

  /** The arrivals (indices) at which it raised an alarm. */
  List<Integer> alarms(double[] values);

  /** A detector named {@code name} whose alarms over a series {@code alarms} gives. */
  static Detector of(String name, Function<double[], List<Integer>> alarms) {
    return new Detector() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public List<Integer> alarms(double[] values) {
        return alarms.apply(values);
      }
    };
  }

  /** The coordinator's regression check: each value against the median and MAD of the 30 before it. */
  static Detector zScore() {
    return of("robust z-score", values -> arrivals(values.length, t -> {
      int n = Math.min(RobustZScore.HISTORY, t);
      double[] history = new double[n];
      for (int i = 0; i < n; i++) {
        history[i] = values[t - 1 - i];
      }
      return RobustZScore.check(values[t], history).isPresent();
    }));
  }

  /** E-Divisive on each arrival ({@link OnlineDetector}). */
  static Detector eDivisive(OnlineDetector.Settings settings) {
    return of("E-Divisive", values -> {
      OnlineDetector detector = new OnlineDetector(settings);
      return arrivals(values.length, t -> detector.add(values[t]).isPresent());
    });
  }

  /** E-Divisive over the whole series at once, as the History view annotates it: "alarms" are the located changes. */
  static Detector eDivisiveOffline(EDivisive.Settings settings) {
    EDivisive detector = new EDivisive(settings);
    return of("E-Divisive, whole history", values -> detector.detect(values).stream().map(c -> (int) c.index())
        .toList());
  }

  /** The arrivals 0 to {@code n - 1}, asked in order, at which {@code alarm} is raised. */
  private static List<Integer> arrivals(int n, IntPredicate alarm) {
    List<Integer> alarms = new ArrayList<>();
    for (int t = 0; t < n; t++) {
      if (alarm.test(t)) {
        alarms.add(t);
      }
    }
    return alarms;
  }
}
