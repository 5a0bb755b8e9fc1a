package io.busload.agent.cpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.busload.testsupport.SystemProperty;
import org.junit.jupiter.api.Test;

/** The CPU backend's time cap: 1 s, or what the test property sets, and a bad setting named. */
class CpuDeviceTimeCapTest {
  private final CpuDevice cpu = CpuDevice.create("cap-host");

  @Test
  void timeCap_propertyUnset_oneSecond() {
    try (SystemProperty unset = SystemProperty.set(CpuDevice.TIME_CAP_PROPERTY, "0.5")) {
      System.clearProperty(CpuDevice.TIME_CAP_PROPERTY);
      assertThat(cpu.timeCapSeconds()).isEqualTo(1.0);
    }
  }

  @Test
  void timeCap_propertySet_thoseSecondsAndPutBackAfter() {
    try (SystemProperty set = SystemProperty.set(CpuDevice.TIME_CAP_PROPERTY, "0.2")) {
      assertThat(cpu.timeCapSeconds()).isEqualTo(0.2);
    }
    assertThat(System.getProperty(CpuDevice.TIME_CAP_PROPERTY)).isNull();
    assertThat(cpu.timeCapSeconds()).isEqualTo(1.0);
  }

  @Test
  void timeCap_notAPositiveNumber_refusedNamingThePropertyAndValue() {
    for (String bad : new String[] {"0", "-1", "fast", "NaN", "Infinity"}) {
      try (SystemProperty set = SystemProperty.set(CpuDevice.TIME_CAP_PROPERTY, bad)) {
        assertThatThrownBy(cpu::timeCapSeconds).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining(CpuDevice.TIME_CAP_PROPERTY).hasMessageContaining("'" + bad + "'");
      }
    }
  }
}
