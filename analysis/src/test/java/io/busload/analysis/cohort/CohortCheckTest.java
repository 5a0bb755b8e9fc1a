package io.busload.analysis.cohort;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CohortCheckTest {
  private static final String H100 = "NVIDIA H100 80GB HBM3";
  private static final String CASE = "stride-copy-fp32 size=67108864;stride=4";
  private final CohortCheck check = new CohortCheck(CohortCheck.Settings.defaults());

  private static List<DeviceFigure> fleet(int devices, double sickFactor, double sickSm) {
    List<DeviceFigure> figures = new ArrayList<>();
    for (int i = 0; i < devices; i++) {
      double jitter = 1 + 0.004 * ((i * 7) % 5 - 2);
      boolean sick = i == 3;
      figures.add(new DeviceFigure("host" + i + "/cuda:0", H100, "13.0", CASE, "stride-copy-fp32",
          2.0e12 * jitter * (sick ? sickFactor : 1), sick ? sickSm : 1980.0, 2619.0));
    }
    return figures;
  }

  @Test
  void flags_oneCardSevenPercentSlow_flaggedAtTheSameClocks() {
    List<CohortFlag> flags = check.flags(fleet(12, 0.93, 1980));
    assertThat(flags).hasSize(1);
    CohortFlag flag = flags.getFirst();
    assertThat(flag.deviceId()).isEqualTo("host3/cuda:0");
    assertThat(flag.peers()).isEqualTo(11);
    assertThat(flag.sameClocks()).isTrue();
    assertThat(flag.sentence()).matches("this H100 is 7\\.\\d% below its 11 peers on stride-copy-fp32 "
        + "\\(size=67108864;stride=4\\), at the same clocks");
  }

  @Test
  void flags_slowCardAtLowerClock_saysTheClocks() {
    CohortFlag flag = check.flags(fleet(12, 0.9, 1755)).getFirst();
    assertThat(flag.sameClocks()).isFalse();
    assertThat(flag.sentence()).endsWith("at other clocks (SM 1755 MHz vs 1980 MHz, memory 2619 MHz vs 2619 MHz)");
  }

  @Test
  void flags_healthyFleet_noFlag() {
    assertThat(check.flags(fleet(12, 1.0, 1980))).isEmpty();
  }

  @Test
  void flags_tooFewPeers_noBand() {
    assertThat(check.flags(fleet(3, 0.5, 1980))).isEmpty();
  }

  @Test
  void flags_otherDriver_isAnotherCohort() {
    List<DeviceFigure> figures = new ArrayList<>(fleet(6, 1.0, 1980));
    figures.add(new DeviceFigure("odd/cuda:0", H100, "12.8", CASE, "stride-copy-fp32", 1.5e12, 1980.0, 2619.0));
    assertThat(check.flags(figures)).isEmpty();
  }
}
