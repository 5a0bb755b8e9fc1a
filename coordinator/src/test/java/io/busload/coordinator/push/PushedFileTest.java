package io.busload.coordinator.push;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.busload.coordinator.Fixtures;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PushedFileTest {

  /**
   * A file cut anywhere inside its last result, inside a token too ('nul' of a null, half a number), is named as
   * cut: the deploy test once cut one inside a null and was told "not valid JSON: Unrecognized token 'nul'".
   */
  @Test
  void read_jsonCutAnywhereInTheLastResult_saysTheFileEndsInTheMiddleOfIt() throws Exception {
    List<KernelResult> results = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      results.add(Fixtures.result(null, null, "lab-gpu", Fixtures.gpu("lab-gpu", 0), i + 1, true,
          Instant.parse("2026-11-24T10:00:00Z").plusSeconds(i)));
    }
    String json = JsonCodec.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(results);
    int lastStart = json.lastIndexOf("}, {") + 3;
    assertThat(json.substring(lastStart)).as("the cut starts in the last result").startsWith("{");
    int cuts = 0;
    for (int end = lastStart + 1; end < json.length() - 2; end++) {
      byte[] cut = json.substring(0, end).getBytes(StandardCharsets.UTF_8);
      PushRefused refused = catchThrowableOfType(PushRefused.class, () -> PushedFile.read(cut));
      assertThat(refused).as("cut after %d chars ('...%s')", end, json.substring(Math.max(0, end - 12), end))
          .isNotNull();
      assertThat(refused.getMessage()).as("cut after %d chars ('...%s')", end,
          json.substring(Math.max(0, end - 12), end)).startsWith("the file ends in the middle of result 2 (truncated?)");
      cuts++;
    }
    assertThat(cuts).isGreaterThan(500);
    assertThat(json).contains("null");
  }
}
