package io.busload.coordinator.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.busload.coordinator.Fixtures;
import io.busload.protocol.Codecs;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The coordinator's decoding of results from the wire: the record as the protocol reads it, and storable bytes. */
class ReceivedResultTest {
  private static final KernelResult RESULT = KernelResult.builder().schemaVersion(1).id(java.util.UUID.randomUUID())
      .runId("run-1").sweepId("sweep-1").agentId("agent-1").agentVersion("0.1.0").fatbinHash("fatbin")
      .device(Fixtures.gpu("h", 0)).suite("stride").kernel("stride_copy_fp32")
      .params(java.util.Map.of("stride", 4, "elements", 1024)).valid(true).mismatches(List.of())
      .medianSeconds(1.0000000000000002e-4).minSeconds(0.99e-4).maxSeconds(1.01e-4).relativeSpread(0.02)
      .samples(List.of(0.1 + 0.2, 1.0 / 3, 2.2250738585072014E-308, 9.999999999999999e-5)).launchesPerSample(10)
      .warmupLaunches(5).bytesRead(4).bytesWritten(4).bytes(8).bandwidth(8.0e4)
      .method("median of 4 samples; 10 launches each").measuredAt(Instant.parse("2026-11-22T01:02:03.123456Z"))
      .build();
  private final ReceivedResult.Codec codec = new ReceivedResult.Codec();

  @Test
  void decode_whatTheProtocolEncoded_sameRecordAndTheBytesAsSent() {
    Buffer wire = Buffer.buffer("prefix");
    new JsonCodec<>(KernelResult.class).encodeToWire(wire, RESULT);

    ReceivedResult received = (ReceivedResult) codec.decodeFromWire(6, wire);

    // Doubles the fast parser reads must be the very doubles the JDK reads, down to the last bit.
    assertThat(received.result()).isEqualTo(JsonCodec.fromJson(JsonCodec.toJson(RESULT), KernelResult.class));
    assertThat(received.result().samples()).isEqualTo(RESULT.samples());
    assertThat(received.json()).isEqualTo(JsonCodec.toJson(RESULT));
  }

  @Test
  void decode_fieldsTheRecordDoesNotHave_recordReadButBytesNotKept() throws Exception {
    ObjectNode top = (ObjectNode) JsonCodec.MAPPER.readTree(JsonCodec.toJson(RESULT));
    top.put("paddingFromANewerAgent", "x".repeat(1000));
    ObjectNode nested = (ObjectNode) JsonCodec.MAPPER.readTree(JsonCodec.toJson(RESULT));
    ((ObjectNode) nested.get("device")).put("fanSpeed", 3);

    for (ObjectNode json : List.of(top, nested)) {
      ReceivedResult received = decode(JsonCodec.MAPPER.writeValueAsBytes(json));
      assertThat(received.result().id()).isEqualTo(RESULT.id());
      assertThat(received.json()).as("bytes kept for %s", json.fieldNames().next()).isNull();
    }
  }

  @Test
  void decode_bytesAroundTheObject_bytesNotKept() {
    String json = new String(JsonCodec.toJson(RESULT), StandardCharsets.UTF_8);

    for (String framed : List.of(" " + json, json + "\n", "\uFEFF" + json, json + " {}", json + "]")) {
      ReceivedResult received;
      try {
        received = decode(framed.getBytes(StandardCharsets.UTF_8));
      } catch (IllegalArgumentException refused) {
        continue; // refused as malformed is as good: nothing of it is stored
      }
      assertThat(received.json()).as("bytes kept for %s", framed.substring(0, 3)).isNull();
    }
  }

  @Test
  void decode_nonAsciiText_bytesKept() {
    KernelResult withUmlaut = Fixtures.result(null, null, "agent-ü", Fixtures.gpu("hö", 0), 4, true, Instant.now());

    ReceivedResult received = decode(JsonCodec.toJson(withUmlaut));

    assertThat(received.json()).isEqualTo(JsonCodec.toJson(withUmlaut));
    assertThat(received.result().agentId()).isEqualTo("agent-ü");
  }

  @Test
  void decode_overlongUtf8ThatJacksonReads_bytesNotKept() throws Exception {
    // C1 81 is 'A' in a forbidden two-byte form: Jackson reads it, PostgreSQL would refuse the text.
    byte[] json = JsonCodec.toJson(RESULT);
    String text = new String(json, StandardCharsets.UTF_8);
    int at = text.indexOf("median of");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    bytes.write(json, 0, at);
    bytes.write(new byte[] {(byte) 0xC1, (byte) 0x81});
    bytes.write(json, at, json.length - at);

    ReceivedResult received = decode(bytes.toByteArray());

    assertThat(received.result().method()).startsWith("Amedian of");
    assertThat(received.json()).isNull();
  }

  @Test
  void decode_lengthPrefixLongerThanTheFrame_refusedAsMalformed() {
    byte[] json = JsonCodec.toJson(RESULT);
    Buffer lying = Buffer.buffer().appendInt(json.length + 1).appendBytes(json);

    assertThatThrownBy(() -> codec.decodeFromWire(0, lying)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("malformed KernelResult");
    assertThatThrownBy(() -> decode("[1,2]".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("malformed KernelResult");
    assertThatThrownBy(() -> decode("null".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("malformed KernelResult");
  }

  @Test
  void install_twiceOnABusWithTheProtocolCodecs_localSendsStillDeliverTheRecord() throws Exception {
    Vertx vertx = Codecs.register(Vertx.vertx());
    try {
      ReceivedResult.install(vertx.eventBus());
      ReceivedResult.install(vertx.eventBus());
      vertx.eventBus().<Object>consumer("test.results", m -> m.reply(m.body() instanceof KernelResult r ? r.id()
          .toString() : "got a " + m.body().getClass().getSimpleName()));

      Object reply = vertx.eventBus().request("test.results", RESULT).await(10, TimeUnit.SECONDS).body();

      assertThat(reply).isEqualTo(RESULT.id().toString());
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void encode_receivedWithItsBytes_writesThemInTheProtocolsFrame() {
    byte[] pretty = ("{\n  " + new String(JsonCodec.toJson(RESULT), StandardCharsets.UTF_8).substring(1))
        .getBytes(StandardCharsets.UTF_8);
    Buffer withBytes = Buffer.buffer();
    Buffer without = Buffer.buffer();

    codec.encodeToWire(withBytes, new ReceivedResult(RESULT, pretty));
    codec.encodeToWire(without, new ReceivedResult(RESULT, null));

    assertThat(withBytes.getBytes(4, withBytes.length())).isEqualTo(pretty);
    assertThat(new JsonCodec<>(KernelResult.class).decodeFromWire(0, withBytes).id()).isEqualTo(RESULT.id());
    assertThat(without.getBytes(4, without.length())).isEqualTo(JsonCodec.toJson(RESULT));
    assertThat(codec.transform(new ReceivedResult(RESULT, pretty))).isSameAs(RESULT);
  }

  private ReceivedResult decode(byte[] json) {
    return (ReceivedResult) codec.decodeFromWire(0, Buffer.buffer().appendInt(json.length).appendBytes(json));
  }
}
