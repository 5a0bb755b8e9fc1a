package io.busload.coordinator.analysis;

import io.busload.analysis.cohort.DeviceFigure;
import io.busload.analysis.stats.Robust;
import io.busload.analysis.verdict.Conditions;
import io.busload.coordinator.store.VerdictStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * Each device's figure per kernel case, as the cohort check compares them: the median bandwidth of its newest
 * results, with the clocks they ran at. One place, because the REST API's flags and the notices of a device flagged
 * against its cohort must be the same flags.
 */
public final class CohortFigures {
  /** Results per device and kernel case whose median is the device's figure. */
  public static final int RESULTS_PER_FIGURE = 5;

  private CohortFigures() {}

  /** The figures of results measured since {@code since}. Blocking: a store read. */
  public static List<DeviceFigure> since(VerdictStore verdicts, Instant since) {
    List<DeviceFigure> figures = new ArrayList<>();
    for (VerdictStore.Figure f : verdicts.figures(since, RESULTS_PER_FIGURE)) {
      List<Conditions> conditions = new ArrayList<>();
      for (int i = 0; i < f.methods().size(); i++) {
        conditions.add(ClockConditions.of(f.clocks().get(i), f.methods().get(i)));
      }
      figures.add(new DeviceFigure(f.deviceId(), f.model(), f.driverVersion(), f.kernel() + " " + f.params(),
          f.kernel(), Robust.median(f.bandwidths()), clock(conditions, Conditions::smMHz),
          clock(conditions, Conditions::memMHz)));
    }
    return figures;
  }

  private static Double clock(List<Conditions> conditions, Function<Conditions, Double> which) {
    List<Double> known = conditions.stream().map(which).filter(Objects::nonNull).toList();
    return known.isEmpty() ? null : Robust.median(known);
  }
}
