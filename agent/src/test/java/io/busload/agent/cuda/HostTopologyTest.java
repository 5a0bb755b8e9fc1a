package io.busload.agent.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.protocol.Topology;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The host topology in the fingerprint: PCIe from sysfs (the slower end wins), NVLink from nvidia-smi topo. */
class HostTopologyTest {
  @TempDir
  Path sysfs;

  private static void write(Path folder, String... nameValue) throws IOException {
    Files.createDirectories(folder);
    for (int i = 0; i < nameValue.length; i += 2) {
      Files.writeString(folder.resolve(nameValue[i]), nameValue[i + 1] + "\n");
    }
  }

  @Test
  void pcie_gen5GpuBehindGen4Port_linkIsGen4AndRateFollows() throws IOException {
    Path port = sysfs.resolve("pci0000:00/0000:00:01.0");
    Path gpu = port.resolve("0000:17:00.0");
    write(port, "max_link_speed", "16.0 GT/s PCIe", "max_link_width", "16");
    write(gpu, "max_link_speed", "32.0 GT/s PCIe", "max_link_width", "16", "current_link_speed", "2.5 GT/s PCIe",
        "current_link_width", "16", "numa_node", "1");
    Path bus = Files.createDirectories(sysfs.resolve("bus")).resolve("0000:17:00.0");
    Files.createSymbolicLink(bus, gpu);

    Topology t = HostTopology.pcie(bus, "0000:17:00.0");

    assertThat(t.pcieGeneration()).isEqualTo(4);
    assertThat(t.pcieWidth()).isEqualTo(16);
    assertThat(t.pcieCurrentGeneration()).as("idle GPUs drop to generation 1").isEqualTo(1);
    assertThat(t.numaNode()).isEqualTo(1);
    assertThat(t.pcieBytesPerSecond()).isCloseTo(31.5e9, org.assertj.core.data.Offset.offset(0.1e9));
  }

  @Test
  void pcie_nothingInSysfs_unknownNotZeroBandwidthClaims() {
    Topology t = HostTopology.pcie(sysfs.resolve("absent"), "0000:99:00.0");

    assertThat(t.pcieGeneration()).isZero();
    assertThat(t.numaNode()).isEqualTo(-1);
    assertThat(t.pcieBytesPerSecond()).isZero();
  }

  @Test
  void rate_gen5x16_63GBps_gen3x8_about7p9() {
    assertThat(Topology.pcieBytesPerSecond(5, 16)).isCloseTo(63.0e9, org.assertj.core.data.Offset.offset(0.1e9));
    assertThat(Topology.pcieBytesPerSecond(3, 8)).isCloseTo(7.88e9, org.assertj.core.data.Offset.offset(0.01e9));
    assertThat(HostTopology.generation("8.0 GT/s PCIe")).isEqualTo(3);
    assertThat(HostTopology.generation("Unknown")).isZero();
    assertThat(HostTopology.sysfsName("00000000:17:00.0")).isEqualTo("0000:17:00.0");
  }

  @Test
  void parseTopo_nvlinkAndPcieCells_byGpuPair() {
    List<String> lines = List.of(
        "\tGPU0\tGPU1\tGPU2\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID",
        "GPU0\t X \tNV18\tSYS\tPIX\t0-47\t0\t\tN/A",
        "GPU1\tNV18\t X \tSYS\tSYS\t0-47\t0\t\tN/A",
        "GPU2\tSYS\tSYS\t X \tSYS\t48-95\t1\t\tN/A",
        "NIC0\tPIX\tSYS\tSYS\t X",
        "Legend:",
        "  NV#  = Connection traversing a bonded set of # NVLinks");

    var cells = HostTopology.parseTopo(lines);

    assertThat(cells).containsEntry("0,1", "NV18").containsEntry("1,0", "NV18").containsEntry("0,2", "SYS")
        .containsEntry("2,1", "SYS").doesNotContainKey("0,3");
    assertThat(HostTopology.link("NV18")).isEqualTo("nvlink");
    assertThat(HostTopology.link("SYS")).isEqualTo("pcie");
    assertThat(HostTopology.link("")).isEqualTo("unknown");
  }

  /** As nvidia-smi printed it into a file on two NVLink-joined H200s: the header underlined with terminal escapes. */
  @Test
  void parseTopo_headerWithTerminalEscapes_bothGpusKeepTheirNvlinkCell() {
    List<String> lines = List.of(
        "\t\u001B[4mGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\u001B[0m",
        "GPU0\t X \tNV18\t0-31\t0\t\tN/A",
        "GPU1\tNV18\t X \t0-31\t0\t\tN/A",
        "",
        "Legend:");

    var cells = HostTopology.parseTopo(lines);

    assertThat(cells).containsEntry("0,1", "NV18").containsEntry("1,0", "NV18").containsEntry("0,0", "X")
        .hasSize(4);
  }

  /** Without a header at all, a GPU row is not taken for one: no cells rather than cells in the wrong columns. */
  @Test
  void parseTopo_noHeader_noCells() {
    assertThat(HostTopology.parseTopo(List.of("GPU0\t X \tNV18", "GPU1\tNV18\t X "))).isEmpty();
  }

  /** A pair's links from NVML: straight to the other GPU, else through NVSwitches both have links up to. */
  @Test
  void nvlinksBetween_directSwitchedNoneAndUnknown() {
    var direct = java.util.Optional.of(new io.busload.agent.cuda.nvml.Nvml.NvLinks(6, 6,
        java.util.Map.of("0000:00:07.0", 4), 0));
    var switched = java.util.Optional.of(new io.busload.agent.cuda.nvml.Nvml.NvLinks(18, 18, java.util.Map.of(), 18));
    var degraded = java.util.Optional.of(new io.busload.agent.cuda.nvml.Nvml.NvLinks(18, 17, java.util.Map.of(), 17));
    var none = java.util.Optional.of(io.busload.agent.cuda.nvml.Nvml.NvLinks.NONE);

    assertThat(HostTopology.nvlinksBetween(direct, none, "0000:00:07.0")).isEqualTo(4);
    assertThat(HostTopology.nvlinksBetween(direct, none, "0000:00:08.0")).isZero();
    assertThat(HostTopology.nvlinksBetween(switched, degraded, "0000:00:08.0")).isEqualTo(17);
    assertThat(HostTopology.nvlinksBetween(switched, none, "0000:00:08.0")).isZero();
    assertThat(HostTopology.nvlinksBetween(switched, java.util.Optional.empty(), "0000:00:08.0")).isEqualTo(-1);

    assertThat(HostTopology.detail(17, "NV18")).as("NVML's active links win").isEqualTo("NV17");
    assertThat(HostTopology.detail(0, "NV18")).as("bonded but not up: not NVLink now").isEmpty();
    assertThat(HostTopology.detail(0, "SYS")).isEqualTo("SYS");
    assertThat(HostTopology.detail(-1, "NV18")).as("NVML silent: nvidia-smi's cell").isEqualTo("NV18");
  }
}
