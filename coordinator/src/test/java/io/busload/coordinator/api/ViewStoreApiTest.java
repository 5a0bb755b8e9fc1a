package io.busload.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.coordinator.Fixtures;
import io.busload.coordinator.Http;
import io.busload.protocol.Addresses;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.KernelResult;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** GET /api/results/latest, /api/kernels and /api/history of a running coordinator, results sent by an agent. */
class ViewStoreApiTest {
  private static final DeviceInfo GPU = Fixtures.gpu("h1", 0);

  @RegisterExtension final LocalCoordinator local = new LocalCoordinator();
  private Http http;
  private KernelResult older;
  private KernelResult newer;

  @BeforeEach
  void start() {
    http = local.http();
    assertThat(local.request(Addresses.AGENT_HELLO, Fixtures.hello("a1", GPU)).ok()).isTrue();
    older = Fixtures.result("s1", "r1", "a1", GPU, 4, true, Instant.now().minusSeconds(60));
    newer = Fixtures.result("s2", "r2", "a1", GPU, 4, true, Instant.now());
    for (KernelResult r : new KernelResult[] {older, newer}) {
      assertThat(local.request(Addresses.RESULTS, r).ok()).isTrue();
    }
  }

  private static String enc(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }

  @Test
  void latest_byDeviceAndByModel_theNewestResultAsTheAgentSentIt() {
    JsonNode byDevice = Http.json(http.get("/api/results/latest?device=" + enc(GPU.id())));
    JsonNode byModel = Http.json(http.get("/api/results/latest?model=" + enc(GPU.name())));

    assertThat(byDevice).hasSize(1);
    assertThat(byDevice.get(0).get("id").asText()).isEqualTo(newer.id().toString());
    assertThat(byDevice.get(0).get("samples")).hasSize(3);
    assertThat(byModel.get(0).get("id").asText()).isEqualTo(newer.id().toString());
  }

  @Test
  void latest_neitherDeviceNorModel_400() {
    HttpResponse<String> response = http.get("/api/results/latest");

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(Http.json(response).get("detail").asText()).isEqualTo("give either device or model");
  }

  @Test
  void kernelsAndHistory_pairsAndPointsNewestFirst() {
    JsonNode kernels = Http.json(http.get("/api/kernels"));
    JsonNode points = Http.json(http.get("/api/history?kernel=stride_copy_fp32&params=" + enc("elements=1024;stride=4")));

    assertThat(kernels.toString()).isEqualTo("[{\"kernel\":\"stride_copy_fp32\",\"params\":\"elements=1024;stride=4\"}]");
    assertThat(points).hasSize(2);
    assertThat(points.get(0).get("resultId").asText()).isEqualTo(newer.id().toString());
    assertThat(points.get(0).get("deviceId").asText()).isEqualTo(GPU.id());
    assertThat(points.get(0).get("model").asText()).isEqualTo(GPU.name());
    assertThat(points.get(0).get("bandwidth").asDouble()).isEqualTo(newer.bandwidth());
    assertThat(Instant.parse(points.get(1).get("measuredAt").asText())).isEqualTo(older.measuredAt());
    assertThat(http.get("/api/history?kernel=stride_copy_fp32").statusCode()).isEqualTo(400);
    assertThat(Http.json(http.get("/api/history?kernel=stride_copy_fp32&params=" + enc("elements=1024;stride=4")
        + "&limit=1"))).hasSize(1);
  }
}
