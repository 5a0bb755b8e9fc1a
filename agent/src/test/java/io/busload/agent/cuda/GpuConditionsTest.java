package io.busload.agent.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.agent.device.DeviceConditions;
import java.util.List;
import org.junit.jupiter.api.Test;

class GpuConditionsTest {

  @Test
  void parse_idleGpuOnlyUs_noWarning() {
    DeviceConditions c = GpuConditions.parse("1980, 2619, 41, 0x0000000000000001", List.of("4242, java, 9000"), 4242);
    assertThat(c.text()).isEqualTo("sm 1980 MHz, mem 2619 MHz, 41 C, throttle reasons 0x0000000000000001, no other processes");
    assertThat(c.throttling()).isFalse();
    assertThat(c.shared()).isFalse();
    assertThat(DeviceConditions.warning(c, c)).isNull();
  }

  @Test
  void parse_powerCapAndAnotherProcess_warnsBoth() {
    DeviceConditions c = GpuConditions.parse("1410, 2619, 83, 0x0000000000000004", List.of("77, python3, 30000"), 4242);
    assertThat(c.throttling()).isTrue();
    assertThat(c.shared()).isTrue();
    assertThat(c.text()).endsWith("other processes: 77, python3, 30000");
    assertThat(DeviceConditions.warning(DeviceConditions.notRecorded("x"), c))
        .isEqualTo("WARNING: the GPU was throttling and shared with other processes during this measurement");
  }

  @Test
  void query_noNvidiaSmiHere_notRecordedSayingSo() {
    DeviceConditions c = GpuConditions.query("0");
    // On a GPU host this records real clocks; on the build machines nvidia-smi is absent.
    if (c.text().startsWith("not recorded")) {
      assertThat(c.text()).isEqualTo("not recorded: nvidia-smi not found");
    }
  }

  @Test
  void version_driverNumber_majorDotMinor() {
    assertThat(Cuda.version(13000)).isEqualTo("13.0");
    assertThat(Cuda.version(12080)).isEqualTo("12.8");
  }
}
