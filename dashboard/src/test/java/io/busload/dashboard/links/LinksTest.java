package io.busload.dashboard.links;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.KernelResult;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The link charts from results: the matrix (no peer access in words, never zero) and the curves. */
class LinksTest {
  @Test
  void cells_threeGpusOneWithoutPeerAccess_bandwidthsAndNoPeerAccessInWords() {
    List<Links.Cell> cells = Links.cells("p2p-ce-write", LinkResults.matrix("host-m"));

    assertThat(cells).hasSize(6);
    assertThat(cells).filteredOn(c -> c.row() == 0 && c.column() == 1).singleElement()
        .isEqualTo(new Links.Cell(0, 1, 120.0, "120.0 GB/s"));
    assertThat(cells).filteredOn(c -> c.row() == 2 || c.column() == 2).hasSize(4)
        .allSatisfy(c -> {
          assertThat(c.gigabytes()).as("no peer access is not zero").isNull();
          assertThat(c.text()).isEqualTo("no peer access");
        });
  }

  @Test
  void heatmap_threeGpus_categoriesCellsAndGreyNoPeerCells() {
    ObjectNode option = Links.heatmap("host-m", "p2p-ce-write", LinkResults.matrix("host-m"));

    assertThat(option.at("/series/0/type").asText()).isEqualTo("heatmap");
    assertThat(option.at("/xAxis/data").toString()).isEqualTo("[\"cuda:0\",\"cuda:1\",\"cuda:2\"]");
    assertThat(option.at("/visualMap/max").asDouble()).isEqualTo(121.0);
    String data = option.at("/series/0/data").toString();
    assertThat(data).contains("{\"name\":\"cuda:1 \u2192 cuda:0: 121.0 GB/s\",\"value\":[0,1,121.0]}")
        .contains("\"value\":[2,0,\"-\"],\"label\":{\"show\":true,\"formatter\":\"no peer access\"}");
    assertThat(data).doesNotContain("[2,0,0");
  }

  @Test
  void noMatrix_singleGpuHost_saysWhy() {
    DeviceInfo cpu = new DeviceInfo("build/cpu", DeviceInfo.CPU, "CPU: test", null, null, 2, 0, 8L << 30, 0, 0, 0,
        "Linux");
    List<KernelResult> results = List.of(LinkResults.link(cpu, "p2p-ce-write",
        Map.of("bytes", 4096, "peer", -1, "size", 4096), null,
        "skipped: peer: no GPU pair on this host: cpu is its only cpu device"));

    assertThat(Links.noMatrix(results)).isEqualTo("no GPU pair on this host: cpu is its only cpu device");
    assertThat(Links.cells("p2p-ce-write", results)).isEmpty();
  }

  @Test
  void curves_hostLinksBySize_lineAtPcieRateEachAndBothWays() {
    DeviceInfo d = LinkResults.gpu("host-m", 0);
    List<KernelResult> results = List.of(
        LinkResults.link(d, "h2d-ce-pinned", Map.of("bytes", 1048576, "size", 1048576), 40e9, null),
        LinkResults.link(d, "h2d-ce-pinned", Map.of("bytes", 4096, "size", 4096), 2e9, null),
        LinkResults.link(d, "d2h-ce-pinned", Map.of("bytes", 4096, "size", 4096), 1.5e9, null),
        LinkResults.link(d, "h2d-ce-pageable", Map.of("bytes", 4096, "size", 4096), null, "skipped: size"));

    ObjectNode option = Links.curves("links", Map.of("host-m/cuda:0", results));

    assertThat(option.at("/xAxis/type").asText()).isEqualTo("log");
    assertThat(option.at("/series").size()).as("the skipped pageable case draws nothing").isEqualTo(2);
    assertThat(option.at("/series/0/name").asText()).isEqualTo("d2h-ce-pinned");
    assertThat(option.at("/series/1/name").asText()).isEqualTo("h2d-ce-pinned");
    assertThat(option.at("/series/1/data").toString()).isEqualTo("[[4096,2.0],[1048576,40.0]]");
    assertThat(option.at("/series/0/markLine/data/0/name").asText()).isEqualTo("PCIe gen5 x16 each way: 63.015 GB/s");
    assertThat(option.at("/series/0/markLine/data/1/yAxis").asDouble()).isEqualTo(126.031);
  }

  @Test
  void curves_noTopology_noLineAndSaysSo() {
    DeviceInfo cpu = new DeviceInfo("build/cpu", DeviceInfo.CPU, "CPU: test", null, null, 2, 0, 8L << 30, 0, 0, 0,
        "Linux");
    ObjectNode option = Links.curves("links", Map.of("cpu", List.of(
        LinkResults.link(cpu, "h2d-ce-pinned", Map.of("bytes", 4096, "size", 4096), 2e9, null))));

    assertThat(option.at("/series/0/markLine").isMissingNode()).isTrue();
    assertThat(option.at("/title/subtext").asText()).contains("no link rate line");
  }

  /** The two NVLink-joined H200s as cuda:1 measured them (docs/results/2026-11-24-h200x2-interconnect). */
  @Test
  void cells_measuredNvlinkPair_bandwidthAndShareOfTheLinks() throws Exception {
    List<KernelResult> measured = List.of(io.busload.protocol.JsonCodec.fromJson(java.nio.file.Files.readAllBytes(
        java.nio.file.Path.of("../docs/results/2026-11-24-h200x2-interconnect/interconnect-cuda1.json")),
        KernelResult[].class));

    assertThat(Links.cells("p2p-ce-write", measured)).singleElement()
        .isEqualTo(new Links.Cell(1, 0, 390.747, "390.747 GB/s, 86.8% of 18 NVLinks' 450.0 GB/s each way"));
    assertThat(Links.cells("p2p-ce-bidir", measured)).singleElement().extracting(Links.Cell::text).asString()
        .isEqualTo("771.087 GB/s, 85.7% of 18 NVLinks' 900.0 GB/s both ways");
  }
}
