package io.busload.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.coordinator.Http;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * BabelStream's --csv output from real runs on the lent H100 and H200 (docs/results/2026-11-27-health-and-babelstream)
 * pushed to a real coordinator (real PostgreSQL, real HTTP): stored as the suite babelstream, in History beside
 * Busload's own results and marked as measured by BabelStream with its version; a verdict on them says why it
 * cannot judge.
 */
class PushBabelStreamApiTest {
  private static final Path RUNS = Path.of("..", "docs", "results", "2026-11-27-health-and-babelstream");
  private static final Instant T = Instant.parse("2026-11-27T19:00:00Z");
  private static final String COPY_FP64 = URLEncoder.encode("elements=33554432;type=fp64", StandardCharsets.UTF_8);

  @RegisterExtension final LocalCoordinator local = new LocalCoordinator();
  private Http http;

  @BeforeEach
  void start() throws Exception {
    http = local.http();
  }

  private HttpResponse<String> push(String host, String gpu, String name, Instant at, String version)
      throws Exception {
    String body = Files.readString(RUNS.resolve(gpu).resolve("babelstream").resolve(name));
    return http.write("POST", "/api/pushes?host=" + host + "&file=" + name + "&measuredAt=" + at
        + (version == null ? "" : "&toolVersion=" + version), body, "Bearer " + Http.TOKEN);
  }

  @Test
  void push_threeH100RunsAndOneH200_inHistoryMarkedAsBabelStreamAndStoredOnce() throws Exception {
    List<JsonNode> outcomes = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      HttpResponse<String> pushed = push("lab-h100", "h100", "fp64-" + i + ".csv", T.plusSeconds(3600L * i), "5.0");
      assertThat(pushed.statusCode()).as(pushed.body()).isEqualTo(201);
      outcomes.add(Http.json(pushed));
    }
    HttpResponse<String> h200 = push("lab-h200", "h200", "fp64-1.csv", T.plusSeconds(3600L * 4), "5.0");
    assertThat(h200.statusCode()).as(h200.body()).isEqualTo(201);
    HttpResponse<String> again = push("lab-h100", "h100", "fp64-1.csv", T.plusSeconds(3600L), "5.0");

    assertThat(outcomes).allSatisfy(o -> assertThat(o.get("stored").asInt()).isEqualTo(5));
    assertThat(again.statusCode()).as(again.body()).isEqualTo(200);
    assertThat(Http.json(again).get("alreadyPresent").asInt()).isEqualTo(5);
    JsonNode history = Http.json(http.get("/api/history?kernel=babelstream-copy&params=" + COPY_FP64));
    assertThat(history).hasSize(4);
    assertThat(history).allSatisfy(p -> {
      assertThat(p.get("pushed").asBoolean()).isTrue();
      assertThat(p.get("measuredBy").asText()).isEqualTo("BabelStream 5.0");
    });
    assertThat(history.get(0).get("model").asText()).isEqualTo("NVIDIA H200");
    assertThat(history.get(3).get("model").asText()).isEqualTo("NVIDIA H100 80GB HBM3");
    assertThat(history.get(3).get("measuredAt").asText()).isEqualTo(T.plusSeconds(3600).toString());
    // Copy,100,33554432,8,2.90513e+06,0.000184801,0.000196296,0.000187289 (fp64-1.csv on the H100)
    assertThat(history.get(3).get("bandwidth").asDouble()).isCloseTo(2.0 * 33554432 * 8 / 0.000187289,
        org.assertj.core.data.Offset.offset(1.0));

    JsonNode results = Http.json(http.get("/api/results?kernel=babelstream-copy&params=" + COPY_FP64));
    assertThat(results).hasSize(4);
    JsonNode result = results.get(0);
    assertThat(result.get("suite").asText()).isEqualTo("babelstream");
    assertThat(result.get("origin").get("measuredBy").get("tool").asText()).isEqualTo("BabelStream");
    assertThat(result.get("origin").get("measuredBy").get("centre").asText()).isEqualTo("mean");
    assertThat(result.get("samples")).isEmpty();

    String baseline = outcomes.get(0).get("sweepIds").get(0).asText();
    String candidate = outcomes.get(1).get("sweepIds").get(0).asText();
    JsonNode verdicts = Http.json(http.get("/api/verdicts?baseline=sweep:" + baseline + "&candidate=sweep:"
        + candidate));
    assertThat(verdicts.get("rows")).hasSize(5).allSatisfy(row -> {
      assertThat(row.get("verdict").asText()).isEqualTo("UNCLEAR");
      assertThat(row.get("reason").asText()).contains("measured by BabelStream 5.0", "carries no samples");
    });
  }

  @Test
  void push_withoutTheToolsVersion_refusedNamingItAndNothingStored() throws Exception {
    HttpResponse<String> refused = push("lab-h100", "h100", "fp64-1.csv", T, null);

    assertThat(refused.statusCode()).as(refused.body()).isEqualTo(400);
    assertThat(Http.json(refused).get("field").asText()).isEqualTo("toolVersion");
    assertThat(Http.json(http.get("/api/results?limit=100"))).isEmpty();
  }

  @Test
  void push_aMeasuredAtThatIsNoInstant_refusedNamingIt() throws Exception {
    HttpResponse<String> refused = http.write("POST", "/api/pushes?host=lab&file=x.csv&measuredAt=yesterday",
        Files.readString(RUNS.resolve("h100/babelstream/fp64-1.csv")), "Bearer " + Http.TOKEN);

    assertThat(refused.statusCode()).as(refused.body()).isEqualTo(400);
    assertThat(Http.json(refused).get("field").asText()).isEqualTo("measuredAt");
  }
}
