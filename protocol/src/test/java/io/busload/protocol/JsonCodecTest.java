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
    return new KernelResult(Protocol.SCHEMA_VERSION, UUID.randomUUID(), "r1", "s1", "a1", "0.1.0", "abc", CPU,
        "stride", "stride-copy-fp32", Map.of("stride", 4, "elements", 1024L), valid,
        valid ? List.of() : List.of("out[3]: expected 1.0, got 2.0"), 1e-3, 0.9e-3, 1.1e-3, 0.2,
        List.of(1e-3, 0.9e-3, 1.1e-3), 10, 3, 4096, 4096, 8192, valid ? 8.192e6 : 1.0, "median of 3", Instant.now());
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
}
