package io.busload.analysis.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class MemcpyFloorTest {
  @Test
  void of_threeDevicesOfTheModel_fleetMedianTimesFactor() {
    MemcpyFloor floor = MemcpyFloor.of("NVIDIA H100 80GB HBM3", List.of(0.88, 0.87, 0.60));

    assertThat(floor.fraction()).isCloseTo(0.87 * MemcpyFloor.FACTOR, org.assertj.core.data.Offset.offset(1e-12));
    assertThat(floor.published()).isFalse();
    assertThat(floor.source()).isEqualTo("90% of the median 87.0% of peak of 3 NVIDIA H100 80GB HBM3 devices in this"
        + " fleet");
  }

  @Test
  void of_h200Alone_publishedFigureLabelled() {
    MemcpyFloor floor = MemcpyFloor.of("NVIDIA H200", List.of(0.86));

    assertThat(floor.published()).isTrue();
    assertThat(floor.fraction()).isCloseTo(4010.0 / 4800.0 * 0.9, org.assertj.core.data.Offset.offset(1e-12));
    assertThat(floor.source()).contains("BabelStream copy, Azure ND H200 v5");
  }

  @Test
  void of_h100PcieOrUnknownModelAlone_noFloor() {
    assertThat(MemcpyFloor.of("NVIDIA H100 PCIe", List.of())).isNull();
    assertThat(MemcpyFloor.of("NVIDIA RTX 4090", List.of(0.9, 0.9))).isNull();
  }
}
