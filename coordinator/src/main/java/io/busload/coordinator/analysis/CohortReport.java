package io.busload.coordinator.analysis;

import io.busload.analysis.cohort.CohortCheck;
import io.busload.analysis.cohort.CohortFlag;
import io.busload.analysis.cohort.DeviceFigure;
import io.busload.coordinator.store.VerdictStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The devices outside their cohort's band over the last {@code days}, with what they were judged by: the check's
 * settings, how many results make a figure, and how many figures there were. The flags are those of every device,
 * filtered to one afterwards, since a device's band is made of its peers.
 */
public record CohortReport(CohortCheck.Settings settings, int days, int resultsPerFigure, int figures,
    List<CohortFlag> flags) {

  /**
   * The report of results measured within {@code days} before {@code now}, its flags those of {@code device} only
   * unless it is null. Blocking: a store read.
   */
  public static CohortReport of(VerdictStore verdicts, Instant now, int days, String device) {
    return of(CohortFigures.since(verdicts, now.minus(Duration.ofDays(days))),
        new CohortCheck(CohortCheck.Settings.defaults()), days, device);
  }

  static CohortReport of(List<DeviceFigure> figures, CohortCheck check, int days, String device) {
    List<CohortFlag> flags = check.flags(figures).stream().filter(f -> device == null || f.deviceId().equals(device))
        .toList();
    return new CohortReport(check.settings(), days, CohortFigures.RESULTS_PER_FIGURE, figures.size(), flags);
  }
}
