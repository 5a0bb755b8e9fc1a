package io.busload.analysis.evaluation;

import io.busload.analysis.changepoint.ChangePoint;
import io.busload.analysis.changepoint.EDivisive;
import io.busload.analysis.changepoint.OnlineDetector;
import io.busload.analysis.changepoint.RobustZScore;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** A change detector fed a series one value at a time, as the coordinator sees results arrive. */
public interface Detector {
  String name();

  /** The arrivals (indices) at which it raised an alarm. */
  List<Integer> alarms(double[] values);

  /** The coordinator's regression check: each value against the median and MAD of the 30 before it. */
  static Detector zScore() {
    return new Detector() {
      @Override
      public String name() {
        return "robust z-score";
      }

      @Override
      public List<Integer> alarms(double[] values) {
        List<Integer> alarms = new ArrayList<>();
        for (int t = 0; t < values.length; t++) {
          int n = Math.min(RobustZScore.HISTORY, t);
          double[] history = new double[n];
          for (int i = 0; i < n; i++) {
            history[i] = values[t - 1 - i];
          }
          if (RobustZScore.check(values[t], history).isPresent()) {
            alarms.add(t);
          }
        }
        return alarms;
      }
    };
  }

  /** E-Divisive on each arrival ({@link OnlineDetector}). */
  static Detector eDivisive(OnlineDetector.Settings settings) {
    return new Detector() {
      @Override
      public String name() {
        return "E-Divisive";
      }

      @Override
      public List<Integer> alarms(double[] values) {
        OnlineDetector detector = new OnlineDetector(settings);
        List<Integer> alarms = new ArrayList<>();
        for (int t = 0; t < values.length; t++) {
          Optional<ChangePoint> change = detector.add(values[t]);
          if (change.isPresent()) {
            alarms.add(t);
          }
        }
        return alarms;
      }
    };
  }

  /** E-Divisive over the whole series at once, as the History view annotates it: "alarms" are the located changes. */
  static Detector eDivisiveOffline(EDivisive.Settings settings) {
    EDivisive detector = new EDivisive(settings);
    return new Detector() {
      @Override
      public String name() {
        return "E-Divisive, whole history";
      }

      @Override
      public List<Integer> alarms(double[] values) {
        return detector.detect(values).stream().map(c -> (int) c.index()).toList();
      }
    };
  }
}
