package io.busload.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import io.busload.agent.cpu.ShortCpuCases;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The interconnect suite on the CPU backend: host memory copies between threads, and no GPU pair. */
@ExtendWith(ShortCpuCases.class)
class InterconnectCliTest extends InProcessCli {
  private static final List<String> HOST_KERNELS = List.of("h2d-ce-pinned", "d2h-ce-pinned", "bidir-ce-pinned",
      "h2d-ce-pageable", "d2h-ce-pageable", "bidir-ce-pageable", "h2d-sm-mapped", "d2h-sm-mapped", "bidir-sm-mapped");

  @Test
  void runInterconnect_cpuTwoSizes_hostLinksValidPairsSkippedAsNoPair() throws Exception {
    int exit = run("run", "--suite", "interconnect", "--device", "cpu", "--format", "json",
        "--option", "bytes=4096,65536,1048576");

    assertThat(exit).as(err.toString()).isZero();
    // Kept as a test artifact: measured on this machine's CPU, the dashboard's link views are tested on such results.
    java.nio.file.Files.createDirectories(java.nio.file.Path.of("target"));
    java.nio.file.Files.writeString(java.nio.file.Path.of("target/interconnect-cpu.json"), out.toString());
    List<KernelResult> results = JsonCodec.MAPPER.readValue(out.toString(), new TypeReference<>() {});
    // The bytes option sets the pairs' sizes too: 4 pair kernels x 3 sizes.
    assertThat(results).hasSize(1 + 9 * 3 + 4 * 3);
    List<KernelResult> host = results.stream().filter(r -> HOST_KERNELS.contains(r.kernel())).toList();
    assertThat(host).hasSize(27).allSatisfy(r -> {
      assertThat(r.valid()).as(r.kernel() + r.params() + r.mismatches()).isTrue();
      assertThat(r.bandwidth()).isPositive();
      long bytes = ((Number) r.params().get("bytes")).longValue();
      assertThat(r.bytes()).isEqualTo(r.kernel().startsWith("bidir") ? 2 * bytes : bytes);
      assertThat(r.method()).contains("bytes = bytes crossing the link");
    });
    List<KernelResult> pairs = results.stream().filter(r -> r.kernel().startsWith("p2p-")).toList();
    assertThat(pairs).extracting(KernelResult::kernel).containsExactly("p2p-ce-write", "p2p-ce-write",
        "p2p-ce-write", "p2p-ce-bidir", "p2p-ce-bidir", "p2p-ce-bidir", "p2p-sm-write", "p2p-sm-write", "p2p-sm-write",
        "p2p-sm-bidir", "p2p-sm-bidir", "p2p-sm-bidir");
    assertThat(pairs).allSatisfy(r -> {
      assertThat(r.status()).isEqualTo(io.busload.protocol.ResultStatus.SKIPPED);
      assertThat(r.bandwidth()).as("no pair is not a bandwidth of zero").isNull();
      assertThat(r.method()).isEqualTo("skipped: peer: no GPU pair on this host: cpu is its only cpu device");
    });
  }

  @Test
  void runInterconnect_peerThatDoesNotExist_skippedNamingIt() throws Exception {
    int exit = run("run", "--suite", "interconnect", "--device", "cpu", "--format", "json",
        "--option", "bytes=4096", "--option", "peer=3");

    assertThat(exit).as(err.toString()).isZero();
    List<KernelResult> results = JsonCodec.MAPPER.readValue(out.toString(), new TypeReference<>() {});
    assertThat(results.stream().filter(r -> r.kernel().startsWith("p2p-")))
        .hasSize(4).allSatisfy(r -> assertThat(r.method())
            .isEqualTo("skipped: peer: device cuda:3 does not exist; this host has only cpu"));
  }

  @Test
  void runInterconnect_sizeOption_exit2NamingTheBytesAxis() {
    assertThat(run("run", "--suite", "interconnect", "--device", "cpu", "--option", "size=4096")).isEqualTo(2);
    assertThat(err.toString()).contains("size: suite interconnect takes its sizes from the bytes axis");
  }
}
