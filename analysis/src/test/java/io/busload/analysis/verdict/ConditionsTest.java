package io.busload.analysis.verdict;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ConditionsTest {

  @Test
  void fromMethod_h100Sentence_clocksAveragedOverBeforeAndAfter() {
    String method = "warm-up 311 launches; 10 samples of 28 launches between one CUDA event pair; median; GPU before: "
        + "sm 1980 MHz, mem 2619 MHz, 38 C, throttle reasons 0x0000000000000000, no other processes; after: sm 1960 "
        + "MHz, mem 2619 MHz, 41 C, throttle reasons 0x0000000000000000, no other processes";
    Conditions c = Conditions.fromMethod(method);
    assertThat(c.smMHz()).isEqualTo(1970.0);
    assertThat(c.memMHz()).isEqualTo(2619.0);
    assertThat(c.throttling()).isFalse();
    assertThat(c.shared()).isFalse();
  }

  @Test
  void fromMethod_warning_throttlingAndShared() {
    Conditions c = Conditions.fromMethod("GPU before: sm 1410 MHz, mem 2619 MHz, 85 C, throttle reasons 0x20, other "
        + "processes: 77, python, 1000; after: sm 1410 MHz, mem 2619 MHz, 86 C, throttle reasons 0x20, no other "
        + "processes; WARNING: the GPU was throttling and shared with other processes during this measurement");
    assertThat(c.throttling()).isTrue();
    assertThat(c.shared()).isTrue();
  }

  @Test
  void fromMethod_cpuOrNothing_notRecorded() {
    assertThat(Conditions.fromMethod("warm-up 3 launches; GPU before: not recorded: a CPU")).isEqualTo(
        Conditions.NOT_RECORDED);
    assertThat(Conditions.fromMethod(null)).isEqualTo(Conditions.NOT_RECORDED);
  }
}
