package io.busload.coordinator.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.coordinator.Fixtures;
import io.busload.protocol.AgentHello;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.Heartbeat;
import io.busload.protocol.KernelResult;
import io.busload.protocol.Protocol;
import io.busload.protocol.RunStatus;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Names reach the coordinator's plain-text log: a CR or LF in one would forge a line, an escape sequence would
 * rewrite an operator's terminal. Every C0 and C1 control and DEL is refused in each of them, naming the field;
 * free text that is never a name (a status's message) keeps its line breaks.
 */
class MessageCheckControlTest {
  private static final DeviceInfo GPU = Fixtures.gpu("h", 0);
  private static final List<String> CONTROLS = List.of("\r", "\n", "\u0000x", "\u001b[2J", "\u007f", "\u0085",
      "\u009b");

  @Test
  void hello_controlInAgentIdHostLabelOrDevice_refusedNamingTheField() {
    for (String c : CONTROLS) {
      String bad = "a" + c + "b";
      assertThat(MessageCheck.hello(hello("a1", bad, List.of(), GPU))).startsWith("host: ");
      assertThat(MessageCheck.hello(hello(bad, "h", List.of(), GPU))).startsWith("agentId: ");
      assertThat(MessageCheck.hello(hello("a1", "h", List.of("ok", bad), GPU))).startsWith("labels[1]: ");
      assertThat(MessageCheck.hello(hello("a1", "h", List.of(), device(bad + "/cuda:0", "H100"))))
          .startsWith("devices[0].id: ");
      assertThat(MessageCheck.hello(hello("a1", "h", List.of(), device("h/cuda:0", bad))))
          .startsWith("devices[0].name: ");
    }
    assertThat(MessageCheck.hello(hello("a1", "h\r\nINFO forged", List.of(), GPU)))
        .isEqualTo("host: " + MessageCheck.CONTROL);
  }

  @Test
  void statusHeartbeatAndResult_controlInANameRefused_newlineInTheMessageKept() {
    RunStatus status = Fixtures.status("r\n1", "s", "a1", GPU.id(), RunStatus.State.FAILED, 0, 1);
    assertThat(MessageCheck.status(status)).isEqualTo("runId: " + MessageCheck.CONTROL);
    RunStatus multiline = new RunStatus(Protocol.SCHEMA_VERSION, "r1", "s", "a1", GPU.id(), RunStatus.State.FAILED, 0,
        1, "kernel crashed\nat line 2", Instant.now());
    assertThat(MessageCheck.status(multiline)).isNull();
    Heartbeat heartbeat = new Heartbeat(Protocol.SCHEMA_VERSION, "a1", Instant.now(),
        List.of(new Heartbeat.DeviceState(GPU.id(), "r1", "copy\u001b[31m", 0, 1)));
    assertThat(MessageCheck.heartbeat(heartbeat)).isEqualTo("devices[0].kernel: " + MessageCheck.CONTROL);
    KernelResult result = Fixtures.result("s", "r", "a1", GPU, 1, true, Instant.now());
    assertThat(MessageCheck.fromAgent(result)).isNull();
    KernelResult renamed = KernelResult.builder().schemaVersion(result.schemaVersion()).id(result.id())
        .runId(result.runId()).sweepId(result.sweepId()).agentId(result.agentId())
        .agentVersion(result.agentVersion()).fatbinHash(result.fatbinHash()).device(result.device())
        .suite(result.suite()).kernel("k\rernel").params(result.params()).valid(result.valid())
        .mismatches(result.mismatches()).medianSeconds(result.medianSeconds()).minSeconds(result.minSeconds())
        .maxSeconds(result.maxSeconds()).relativeSpread(result.relativeSpread()).samples(result.samples())
        .launchesPerSample(result.launchesPerSample()).warmupLaunches(result.warmupLaunches())
        .bytesRead(result.bytesRead()).bytesWritten(result.bytesWritten()).bytes(result.bytes())
        .bandwidth(result.bandwidth()).method(result.method()).measuredAt(result.measuredAt()).build();
    assertThat(MessageCheck.fromAgent(renamed)).isEqualTo("kernel: " + MessageCheck.CONTROL);
  }

  @Test
  void names_printableUnicodeAndTabFreeText_pass() {
    assertThat(MessageCheck.hello(hello("gpu-ß-01", "höst.example", List.of("lab=東"), GPU))).isNull();
    assertThat(MessageCheck.control('\u00a0')).isFalse();
    assertThat(MessageCheck.control('\t')).isTrue();
  }

  @Test
  void printable_controlsWrittenAsEscapes_oneLine() {
    assertThat(Refusals.printable("a\r\nb\u0085")).isEqualTo("a\\u000d\\u000ab\\u0085");
  }

  private static AgentHello hello(String agentId, String host, List<String> labels, DeviceInfo device) {
    return new AgentHello(Protocol.SCHEMA_VERSION, agentId, host, "0.1.0", "abc", List.of(device), Instant.now(),
        labels);
  }

  private static DeviceInfo device(String id, String name) {
    return new DeviceInfo(id, DeviceInfo.CUDA, name, GPU.uuid(), "9.0", 132, 50L << 20, 80L << 30, 2_619_000_000L,
        5120, 3.35e12, "13.0");
  }
}
