package io.busload.coordinator.notify;

import io.busload.analysis.cohort.CohortFlag;
import io.busload.analysis.cohort.DeviceFigure;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What the cohort check says now: the flags, and which device and kernel case had a figure at all. A flag that is
 * gone counts as a recovery only where the device still has a figure: a card that stopped measuring is not well.
 */
public record CohortState(List<CohortFlag> flags, Set<String> measured) {
  public CohortState {
    flags = List.copyOf(flags);
    measured = Set.copyOf(measured);
  }

  public static CohortState of(List<DeviceFigure> figures, List<CohortFlag> flags) {
    return new CohortState(flags, figures.stream().map(f -> measured(f.deviceId(), f.series()))
        .collect(Collectors.toSet()));
  }

  static String measured(String deviceId, String series) {
    return deviceId + "\n" + series;
  }
}
