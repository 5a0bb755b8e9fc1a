package io.busload.coordinator.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.coordinator.Fixtures;
import io.busload.protocol.Counters;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Text a result carries must be Unicode: half a surrogate pair, which JSON can escape and Java reads, is refused
 * before the result is batched (the stored JSON is what the agent sent, and PostgreSQL's jsonb refuses it).
 */
class MessageCheckUnicodeTest {
  private final KernelResult result = Fixtures.result("s", "r", "a", Fixtures.gpu("h", 0), 1, true, Instant.now());

  @Test
  void result_escapedLoneSurrogateInMethod_refusedNamingTheField() {
    String json = new String(JsonCodec.toJson(result), StandardCharsets.UTF_8)
        .replace("\"method\":\"", "\"method\":\"\\ud800");
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    ReceivedResult received = (ReceivedResult) new ReceivedResult.Codec()
        .decodeFromWire(0, Buffer.buffer().appendInt(bytes.length).appendBytes(bytes));

    assertThat(MessageCheck.result(received.result())).isEqualTo("method: must be Unicode text (an unpaired surrogate)");
  }

  @Test
  void text_pairsPassHalvesAnywhereAreRefused() {
    assertThat(MessageCheck.unpairedSurrogate("GPU \uD83D\uDE00 ok")).isFalse();
    assertThat(MessageCheck.unpairedSurrogate("")).isFalse();
    assertThat(MessageCheck.unpairedSurrogate("end \uD83D")).isTrue();
    assertThat(MessageCheck.unpairedSurrogate("\uDE00 start")).isTrue();
    assertThat(MessageCheck.unpairedSurrogate("swapped \uDE00\uD83D")).isTrue();
  }

  @Test
  void result_countersTextWithALoneSurrogate_refused() {
    KernelResult profiled = result.withCounters(new Counters(4.0, 4.0, null, null, 1e6, 1e6, null, null, true,
        List.of("loads \uDC00 off"), List.of("busload_k"), "ncu"));

    assertThat(MessageCheck.result(profiled)).isEqualTo("counters: must be Unicode text (an unpaired surrogate)");
    assertThat(MessageCheck.result(result.withCounters(new Counters(4.0, 4.0, null, null, 1e6, 1e6, null, null,
        true, List.of("loads \uD83D\uDE00 off"), List.of("busload_k"), "ncu")))).isNull();
  }
}
