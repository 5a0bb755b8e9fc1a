package io.busload.analysis.evaluation;

import java.util.ArrayList;
import java.util.List;

/**
 * How one detector did on one series.
 *
 * <p>On arrival: an alarm at most {@link #ATTRIBUTION} values after a true change (and before the next) belongs to
 * that change: the first one detects it, with a delay of (alarm - change) values, later ones are repeats and count
 * neither way (the z-score keeps firing until its window takes the new level in). Every other alarm is a false
 * alarm. A DRIFT's alarms from its onset on are neither (the report counts the drifts flagged). Offline: a located change within {@link #LOCATION_TOLERANCE} of a true one detects it (delay 0 by
 * definition), each other one is false.
 *
 * @param delays one per detected change, in values
 */
public record Score(int changes, int detected, int falseAlarms, int repeats, List<Integer> delays, int points,
    int alarms) {
  public static final int ATTRIBUTION = 40;
  public static final int LOCATION_TOLERANCE = 3;

  static Score onArrival(LabelledSeries series, List<Integer> alarms) {
    List<Integer> changes = series.changes();
    boolean[] seen = new boolean[changes.size()];
    List<Integer> delays = new ArrayList<>();
    int falseAlarms = 0;
    int repeats = 0;
    for (int t : alarms) {
      if (t >= series.onset() && series.onset() > 0) {
        continue; // a drift's alarms are tallied apart: it has no single index to be early or late for
      }
      int owner = -1;
      for (int c = 0; c < changes.size(); c++) {
        if (changes.get(c) <= t && t - changes.get(c) <= ATTRIBUTION) {
          owner = c;
        }
      }
      if (owner < 0) {
        falseAlarms++;
      } else if (seen[owner]) {
        repeats++;
      } else {
        seen[owner] = true;
        delays.add(t - changes.get(owner));
      }
    }
    return new Score(changes.size(), delays.size(), falseAlarms, repeats, delays, series.values().length,
        alarms.size());
  }

  static Score located(LabelledSeries series, List<Integer> located) {
    List<Integer> changes = series.changes();
    boolean[] seen = new boolean[changes.size()];
    int falseAlarms = 0;
    List<Integer> delays = new ArrayList<>();
    for (int at : located) {
      if (at >= series.onset() && series.onset() > 0) {
        continue; // a drift cut into steps: tallied apart, as on arrival
      }
      int match = -1;
      for (int c = 0; c < changes.size(); c++) {
        if (!seen[c] && Math.abs(changes.get(c) - at) <= LOCATION_TOLERANCE) {
          match = c;
        }
      }
      if (match < 0) {
        falseAlarms++;
      } else {
        seen[match] = true;
        delays.add(0);
      }
    }
    return new Score(changes.size(), delays.size(), falseAlarms, 0, delays, series.values().length, located.size());
  }
}
