package io.busload.coordinator.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.analysis.cohort.CohortCheck;
import io.busload.analysis.cohort.CohortFlag;
import io.busload.analysis.cohort.DeviceFigure;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The cohort flags the REST API lists: judged against every peer, then narrowed to the device asked about. */
class CohortReportTest {
  private final CohortCheck check = new CohortCheck(CohortCheck.Settings.defaults());

  /** Six H100s on one kernel case, d2 10% slow; {@code d5} 10% fast when {@code twoOutliers}. */
  private static List<DeviceFigure> figures(boolean twoOutliers) {
    List<DeviceFigure> figures = new ArrayList<>();
    for (int d = 0; d < 6; d++) {
      double value = d == 2 ? 1.8e12 : d == 5 && twoOutliers ? 2.2e12 : 2.0e12 * (1 + 0.002 * d);
      figures.add(new DeviceFigure("d" + d, "H100", "580.82", "stride_copy_fp32 stride=4", "stride_copy_fp32", value,
          1980.0, 2619.0));
    }
    return figures;
  }

  @Test
  void of_noDevice_everyFlagWithTheSettingsItWasJudgedBy() {
    CohortReport report = CohortReport.of(figures(true), check, 30, null);

    assertThat(report.flags()).extracting(CohortFlag::deviceId).containsExactlyInAnyOrder("d2", "d5");
    assertThat(report.figures()).isEqualTo(6);
    assertThat(report.days()).isEqualTo(30);
    assertThat(report.resultsPerFigure()).isEqualTo(CohortFigures.RESULTS_PER_FIGURE);
    assertThat(report.settings()).isEqualTo(CohortCheck.Settings.defaults());
  }

  @Test
  void of_oneDevice_onlyItsFlagButEveryFigureCounted() {
    CohortReport report = CohortReport.of(figures(true), check, 7, "d5");

    assertThat(report.flags()).extracting(CohortFlag::deviceId).containsExactly("d5");
    assertThat(report.figures()).isEqualTo(6);
    assertThat(CohortReport.of(figures(true), check, 7, "d1").flags()).isEmpty();
  }
}
