package io.busload.agent.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import io.busload.protocol.Topology;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A link's result is set against that link's rate over the directions its bytes cross. Read on results as
 * the two NVLink-joined H200s gave them (docs/results/2026-11-24-h200x2-interconnect, cuda:1, whose fingerprint
 * names its NV18 link to cuda:0).
 */
class LinkShareTest {
  private static final Path MEASURED = Path.of("../docs/results/2026-11-24-h200x2-interconnect/interconnect-cuda1.json");

  private static KernelResult measured(String kernel) throws Exception {
    KernelResult[] results = JsonCodec.fromJson(Files.readAllBytes(MEASURED), KernelResult[].class);
    return List.of(results).stream().filter(r -> r.kernel().equals(kernel)).findFirst().orElseThrow();
  }

  @Test
  void peerCopy_overNv18OnHopper_setAgainst18LinksOf25GBs() throws Exception {
    KernelResult write = measured("p2p-ce-write");
    KernelResult both = measured("p2p-ce-bidir");

    assertThat(MethodText.linkShare(write, false, 0, 1))
        .isEqualTo("86.8% of the 18 NVLinks' 450.0 GB/s each way to cuda:0 (18 x 25 GB/s each way)");
    assertThat(MethodText.linkShare(both, false, 0, 2))
        .isEqualTo("85.7% of the 18 NVLinks' 900.0 GB/s both ways to cuda:0 (18 x 25 GB/s each way)");
  }

  @Test
  void hostCopyBothWays_setAgainstBothDirectionsOfThePcieLink() throws Exception {
    KernelResult both = measured("bidir-ce-pinned");

    assertThat(MethodText.linkShare(both, true, -1, 2)).matches("\\d+\\.\\d% of the PCIe gen5 x16 link's 126\\.0 GB/s"
        + " both ways");
    assertThat(MethodText.linkShare(measured("h2d-ce-pinned"), true, -1, 1))
        .endsWith("of the PCIe gen5 x16 link's 63.0 GB/s each way");
  }

  @Test
  void peerWithoutAKnownLink_saysWhyInsteadOfAPercentage() throws Exception {
    KernelResult write = measured("p2p-ce-write");
    // The same result with its peer entry as cuda:0's was recorded before parseTopo was fixed: link unknown.
    String json = new String(JsonCodec.toJson(write), java.nio.charset.StandardCharsets.UTF_8)
        .replace("\"link\":\"nvlink\"", "\"link\":\"unknown\"").replace("\"detail\":\"NV18\"", "\"detail\":\"\"");
    KernelResult noLink = JsonCodec.fromJson(json.getBytes(java.nio.charset.StandardCharsets.UTF_8),
        KernelResult.class);
    assertThat(noLink.device().topology().peers()).extracting(Topology.Peer::link).containsExactly("unknown");

    assertThat(MethodText.linkShare(noLink, false, 0, 1)).isEqualTo("no link ceiling: the link to cuda:0 is unknown");
    assertThat(MethodText.linkShare(write, false, 3, 1))
        .isEqualTo("no link ceiling: cuda:3 is not in this GPU's topology");
    assertThat(Topology.nvlinkBytesPerSecondPerLink("8.6")).as("a consumer bridge: rate unknown").isZero();
  }
}
