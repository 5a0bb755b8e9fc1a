package io.busload.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.buffer.Buffer;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class JsonCodecTest {
  static final DeviceInfo CPU = new DeviceInfo("h/cpu", DeviceInfo.CPU, "CPU: Test (2 threads)", null, null, 2, 0,
      1L << 30, 0, 0, 0, "6.1");

  static KernelResult result(boolean valid) {
    return KernelResult.builder().id(UUID.randomUUID()).runId("r1").sweepId("s1").agentId("a1")
        .agentVersion("0.1.0").fatbinHash("abc").device(CPU).suite("stride").kernel("stride-copy-fp32")
        .params(Map.of("stride", 4, "elements", 1024L)).valid(valid)
        .mismatches(valid ? List.of() : List.of("out[3]: expected 1.0, got 2.0")).medianSeconds(1e-3)
        .minSeconds(0.9e-3).maxSeconds(1.1e-3).relativeSpread(0.2).samples(List.of(1e-3, 0.9e-3, 1.1e-3))
        .launchesPerSample(10).warmupLaunches(3).bytesRead(4096).bytesWritten(4096).bytes(8192)
        .bandwidth(valid ? 8.192e6 : 1.0).method("median of 3").measuredAt(Instant.now()).build();
  }

  @Test
  void kernelResult_roundTripOverWire_equalsOriginal() {
    JsonCodec<KernelResult> codec = new JsonCodec<>(KernelResult.class);
    KernelResult original = result(true);
    Buffer wire = Buffer.buffer();
    wire.appendString("x");
    codec.encodeToWire(wire, original);

    KernelResult decoded = codec.decodeFromWire(1, wire);

    assertThat(decoded.id()).isEqualTo(original.id());
    assertThat(decoded.device()).isEqualTo(original.device());
    assertThat(decoded.samples()).isEqualTo(original.samples());
    assertThat(decoded.measuredAt()).isEqualTo(original.measuredAt());
    assertThat(decoded.params()).containsEntry("stride", 4).containsKey("elements");
    assertThat(decoded.bandwidth()).isEqualTo(8.192e6);
  }

  @Test
  void kernelResult_invalid_hasNoBandwidth() {
    assertThat(result(false).bandwidth()).isNull();
  }

  @Test
  void json_carriesSchemaVersionAndNamedFields() {
    String json = new String(JsonCodec.toJson(result(true)));
    assertThat(json).contains("\"schemaVersion\":1", "\"medianSeconds\"", "\"bandwidth\"", "\"bytes\":8192",
        "\"device\":{", "\"name\":\"CPU: Test (2 threads)\"");
  }

  @Test
  void agentHello_labels_roundTripAndLeftOutWhenNone() {
    AgentHello labelled = new AgentHello(Protocol.SCHEMA_VERSION, "a1", "h", "0.1.0", "abc", List.of(CPU),
        Instant.parse("2026-11-22T00:00:00Z"), List.of("lab-east", "rack=a"));
    AgentHello plain = new AgentHello(Protocol.SCHEMA_VERSION, "a1", "h", "0.1.0", "abc", List.of(CPU),
        Instant.parse("2026-11-22T00:00:00Z"));

    assertThat(JsonCodec.fromJson(JsonCodec.toJson(labelled), AgentHello.class).labels())
        .containsExactly("lab-east", "rack=a");
    assertThat(new String(JsonCodec.toJson(plain))).doesNotContain("labels");
    assertThat(JsonCodec.fromJson(JsonCodec.toJson(plain), AgentHello.class)).isEqualTo(plain);
  }

  @Test
  void agentHello_fromAnAgentBeforeLabels_readsAsNoLabels() {
    String old = "{\"schemaVersion\":1,\"agentId\":\"a1\",\"host\":\"h\",\"agentVersion\":\"0.1.0\","
        + "\"fatbinHash\":\"abc\",\"devices\":[],\"startedAt\":\"2026-11-22T00:00:00Z\"}";
    String nullLabels = old.replace("}", ",\"labels\":null}");

    assertThat(JsonCodec.fromJson(old.getBytes(), AgentHello.class).labels()).isEmpty();
    assertThat(JsonCodec.fromJson(nullLabels.getBytes(), AgentHello.class).labels()).isEmpty();
  }

  @Test
  void fromJson_malformed_namesTheType() {
    assertThatThrownBy(() -> JsonCodec.fromJson("{\"schemaVersion\":".getBytes(), Ack.class))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("malformed Ack");
  }

  @Test
  void fingerprint_sameDevice_sameDigest_otherDevice_otherDigest() {
    DeviceInfo other = new DeviceInfo("h/cpu", DeviceInfo.CPU, "CPU: Other", null, null, 2, 0, 1L << 30, 0, 0, 0,
        "6.1");
    assertThat(CPU.fingerprint()).isEqualTo(CPU.fingerprint()).hasSize(16).isNotEqualTo(other.fingerprint());
  }

  @Test
  void decodeFromWire_lengthPrefixBeyondTheBytes_refusedWithoutAllocating() {
    JsonCodec<Ack> codec = new JsonCodec<>(Ack.class);
    Buffer lying = Buffer.buffer().appendInt(Integer.MAX_VALUE - 8).appendString("{}");
    Buffer negative = Buffer.buffer().appendInt(-5).appendString("{}");
    Buffer empty = Buffer.buffer().appendByte((byte) 1);

    assertThatThrownBy(() -> codec.decodeFromWire(0, lying)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("malformed Ack: body length 2147483639 but 2 byte(s) follow");
    assertThatThrownBy(() -> codec.decodeFromWire(0, negative)).hasMessageStartingWith("malformed Ack: body length -5");
    assertThatThrownBy(() -> codec.decodeFromWire(0, empty)).hasMessage("malformed Ack: no length prefix");
  }

  static Counters counters() {
    return new Counters(8.0, 4.0, 4.0, 4.0, 8.4e6, 8.388608e6, 4.2e6, 4.194304e6, false,
        List.of("loads: 8.00 sectors/request measured, 4.00 modelled"), List.of("busload_stride_copy_f32"),
        "ncu, one launch");
  }

  @Test
  void kernelResult_withCounters_roundTripOverWireKeepsEveryFigure() {
    JsonCodec<KernelResult> codec = new JsonCodec<>(KernelResult.class);
    KernelResult original = result(true).withCounters(counters());
    Buffer wire = Buffer.buffer();
    codec.encodeToWire(wire, original);

    KernelResult decoded = codec.decodeFromWire(0, wire);

    assertThat(decoded.counters()).isEqualTo(original.counters());
    assertThat(decoded.counters().flagged()).as("a listed difference is a flag").isTrue();
    assertThat(decoded.id()).isEqualTo(original.id());
    assertThat(new String(JsonCodec.toJson(original))).contains("\"counters\":{\"loadSectorsPerRequest\":8.0")
        .doesNotContain("figures");
  }

  @Test
  void kernelResult_notProfiled_countersNull() {
    assertThat(result(true).counters()).isNull();
    assertThat(new String(JsonCodec.toJson(result(true)))).as("left out when the result has no counters")
        .doesNotContain("counters");
  }

  /** Exactly what an agent of schema version 1 sent before counters existed: no counters field at all. */
  @Test
  void fromJson_schemaOneResultWithoutCountersField_decodesWithCountersNull() {
    String old = """
        {"schemaVersion":1,"id":"6f1c2a7e-33b5-4d6e-9a10-2b7f4e8c9d01","runId":"r1","sweepId":"s1","agentId":"a1",\
        "agentVersion":"0.1.0","fatbinHash":"abc","device":{"id":"h/cpu","kind":"cpu","name":"CPU: Test (2 threads)",\
        "uuid":null,"computeCapability":null,"multiprocessors":2,"l2Bytes":0,"memoryBytes":1073741824,\
        "memoryClockHz":0,"busWidthBits":0,"theoreticalPeakBytesPerSecond":0.0,"driverVersion":"6.1"},\
        "suite":"stride","kernel":"stride-copy-fp32","params":{"elements":1024,"stride":4},"valid":true,\
        "mismatches":[],"medianSeconds":0.001,"minSeconds":9.0E-4,"maxSeconds":0.0011,"relativeSpread":0.2,\
        "samples":[0.001,9.0E-4,0.0011],"launchesPerSample":10,"warmupLaunches":3,"bytesRead":4096,\
        "bytesWritten":4096,"bytes":8192,"bandwidth":8192000.0,"method":"median of 3",\
        "measuredAt":"2026-11-01T10:00:00Z"}""";

    KernelResult decoded = JsonCodec.fromJson(old.getBytes(), KernelResult.class);

    assertThat(decoded.counters()).isNull();
    // Status and sampling: a result without them is MEASURED by its own fields and carries no sampling.
    assertThat(decoded.status()).isEqualTo(ResultStatus.MEASURED);
    assertThat(decoded.sampling()).isNull();
    assertThat(decoded.bandwidth()).isEqualTo(8.192e6);
    assertThat(decoded.measuredAt()).isEqualTo(Instant.parse("2026-11-01T10:00:00Z"));
  }

  @Test
  void counters_flaggedFalseWithFlagsListed_isFlagged() {
    Counters c = new Counters(null, null, null, null, null, null, null, null, false, List.of("stores: x"), null, "m");

    assertThat(c.flagged()).isTrue();
    assertThat(c.kernels()).isEmpty();
  }

  @Test
  void runRequest_profileOption_readAndLeftOutOfTheSuiteOptions() {
    RunRequest request = new RunRequest(Protocol.SCHEMA_VERSION, "r", "s", "h/cuda:0", "stride",
        Map.of("profile", "true", "size", "1024"));

    assertThat(request.profile()).isTrue();
    assertThat(request.suiteOptions()).containsExactly(Map.entry("size", "1024"));
    assertThat(new String(JsonCodec.toJson(request))).doesNotContain("suiteOptions");
    assertThat(RunRequest.profile(Map.of())).isFalse();
    assertThat(RunRequest.profile(Map.of("profile", "False"))).isFalse();
    assertThatThrownBy(() -> RunRequest.profile(Map.of("profile", "yes")))
        .hasMessage("profile: must be true or false, got 'yes'");
  }
}
