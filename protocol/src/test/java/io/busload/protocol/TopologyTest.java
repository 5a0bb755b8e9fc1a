package io.busload.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The topology travels with the device in JSON, and a device without one reads and writes without a topology key. */
class TopologyTest {
  private static final DeviceInfo GPU = new DeviceInfo("lab/cuda:0", DeviceInfo.CUDA, "NVIDIA H200", "GPU-0", "9.0",
      132, 60L << 20, 141L << 30, 3_201_000_000L, 6144, 4.9e12, "13.0");

  @Test
  void json_deviceWithTopology_roundTripsEveryField() throws Exception {
    DeviceInfo device = GPU.withTopology(new Topology(5, 16, 1, 16, 0,
        List.of(new Topology.Peer(1, true, 0, "nvlink", "NV18"), new Topology.Peer(2, false, -1, "pcie", "SYS")),
        "sysfs /sys/bus/pci/devices/0000:17:00.0"));

    DeviceInfo back = JsonCodec.MAPPER.readValue(JsonCodec.MAPPER.writeValueAsString(device), DeviceInfo.class);

    assertThat(back).isEqualTo(device);
    assertThat(back.fingerprint()).as("a link that trains slower is not another device").isEqualTo(GPU.fingerprint());
  }

  @Test
  void json_deviceWithoutTopology_noFieldWrittenAndOldJsonReads() throws Exception {
    String json = JsonCodec.MAPPER.writeValueAsString(GPU);

    assertThat(json).doesNotContain("topology");
    assertThat(JsonCodec.MAPPER.readValue(json, DeviceInfo.class)).isEqualTo(GPU);
  }

  @Test
  void pcieRate_unknownGeneration_zero() {
    assertThat(new Topology(0, 16, 0, 0, -1, null, "none").pcieBytesPerSecond()).isZero();
    assertThat(Topology.pcieBytesPerSecond(4, 16)).isCloseTo(31.508e9, org.assertj.core.data.Offset.offset(0.001e9));
    assertThat(Topology.pcieBytesPerSecond(1, 1)).isEqualTo(0.25e9);
  }
}
