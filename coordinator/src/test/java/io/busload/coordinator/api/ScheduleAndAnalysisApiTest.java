package io.busload.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.coordinator.Fixtures;
import io.busload.coordinator.Http;
import io.busload.coordinator.analysis.RegressionWatch;
import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.KernelResult;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Schedules, comparisons, regressions, the OpenAPI document and metrics over real HTTP and a real PostgreSQL. */
class ScheduleAndAnalysisApiTest {
  private static final DeviceInfo H100 = Fixtures.gpu("h1", 0);
  private static final DeviceInfo CPU = Fixtures.cpu("h1");

  @RegisterExtension final LocalCoordinator local = new LocalCoordinator();
  private Http http;

  @BeforeEach
  void start() {
    http = local.http();
    assertThat(send(Addresses.AGENT_HELLO, Fixtures.hello("a1", CPU, H100)).ok()).isTrue();
  }

  private Ack send(String address, Object body) {
    return local.request(address, body);
  }

  @Test
  void postSchedule_valid_201WithFiveNextFireTimesInItsZone() {
    HttpResponse<String> created = http.post("/api/schedules", "{\"cron\":\"30 2 * * 1-5\",\"timeZone\":\"Asia/Tokyo\","
        + "\"suite\":\"stride\",\"target\":{\"kind\":\"host\",\"value\":\"a1.example\"}}");

    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    JsonNode body = Http.json(created);
    assertThat(body.get("nextFires")).hasSize(5);
    for (JsonNode t : body.get("nextFires")) {
      var local = Instant.parse(t.asText()).atZone(java.time.ZoneId.of("Asia/Tokyo"));
      assertThat(local.getHour()).isEqualTo(2);
      assertThat(local.getMinute()).isEqualTo(30);
      assertThat(local.getDayOfWeek().getValue()).isBetween(1, 5);
    }
    assertThat(Http.json(http.get("/api/schedules"))).hasSize(1);
  }

  @Test
  void scheduleLifecycle_pauseResumeUpdateDelete_eachAnswersTheScheduleThen404() {
    String id = Http.json(http.post("/api/schedules", "{\"cron\":\"0 3 * * *\",\"suite\":\"stride\"}")).get("id").asText();

    JsonNode paused = Http.json(http.post("/api/schedules/" + id + "/pause", ""));
    assertThat(paused.get("paused").asBoolean()).isTrue();
    assertThat(paused.get("nextFires")).isEmpty();
    JsonNode resumed = Http.json(http.post("/api/schedules/" + id + "/resume", ""));
    assertThat(resumed.get("nextFires")).hasSize(5);
    HttpResponse<String> updated = http.put("/api/schedules/" + id,
        "{\"cron\":\"15 4 * * *\",\"suite\":\"stride\",\"target\":{\"kind\":\"device\",\"value\":\"h1/cpu\"}}");
    assertThat(updated.statusCode()).as(updated.body()).isEqualTo(200);
    assertThat(Http.json(updated).get("cron").asText()).isEqualTo("15 4 * * *");
    assertThat(http.delete("/api/schedules/" + id).statusCode()).isEqualTo(204);
    assertThat(http.get("/api/schedules/" + id).statusCode()).isEqualTo(404);
    HttpResponse<String> again = http.delete("/api/schedules/" + id);
    assertThat(again.statusCode()).isEqualTo(404);
    assertThat(Http.json(again).get("detail").asText()).isEqualTo("unknown schedule '" + id + "'");
  }

  @Test
  void postSchedule_badInput_400NamingTheFieldAndNothingStored() {
    assertBad("{\"cron\":\"61 * * * *\",\"suite\":\"stride\"}", "cron");
    assertBad("{\"cron\":\"0 3 * * *\",\"timeZone\":\"Mars/Base\",\"suite\":\"stride\"}", "timeZone");
    assertBad("{\"cron\":\"0 3 * * *\",\"suite\":\"nope\"}", "suite");
    assertBad("{\"cron\":\"0 3 * * *\",\"suite\":\"stride\",\"options\":{\"elements\":\"many\"}}", "options.elements");
    assertBad("{\"cron\":\"0 3 * * *\",\"suite\":\"stride\",\"target\":{\"kind\":\"rack\",\"value\":\"r1\"}}", "target.kind");
    assertBad("{\"cron\":\"0 3 * * *\",\"suite\":\"stride\",\"target\":{\"kind\":\"model\",\"value\":\"Voodoo 2\"}}", "target");
    assertBad("{\"cron\":\"0 3 * * *\",", "body");
    assertThat(Http.json(http.get("/api/schedules"))).isEmpty();
  }

  private void assertBad(String body, String field) {
    HttpResponse<String> response = http.post("/api/schedules", body);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
    assertThat(response.headers().firstValue("content-type")).hasValue("application/problem+json");
    assertThat(Http.json(response).get("field").asText()).as(response.body()).isEqualTo(field);
  }

  @Test
  void getComparison_twoModels_latestValidPerModelWithMeasuredCeilingAndPeakFractions() {
    Instant t = Instant.parse("2026-11-01T10:00:00Z");
    KernelResult older = Fixtures.result("s", "run-0", "a1", H100, 4, true, t.minusSeconds(60));
    KernelResult latest = Fixtures.result("s", "run-1", "a1", H100, 4, true, t.plusSeconds(1));
    KernelResult invalidNewer = Fixtures.result("s", "run-1", "a1", H100, 4, false, t.plusSeconds(2));
    KernelResult cpu = Fixtures.result("s", "run-2", "a1", CPU, 4, true, t);
    for (KernelResult r : List.of(older, latest, invalidNewer, cpu)) {
      assertThat(send(Addresses.RESULTS, r).ok()).isTrue();
    }
    KernelResult memcpy = KernelResult.builder().id(java.util.UUID.randomUUID()).runId("run-1").sweepId("s")
        .agentId("a1").agentVersion("0.1.0").fatbinHash("f").device(H100).suite("stride").kernel("memcpy-d2d")
        .params(Map.of()).valid(true).mismatches(List.of()).medianSeconds(1e-3).minSeconds(1e-3).maxSeconds(1e-3)
        .relativeSpread(0).samples(List.of(1e-3)).launchesPerSample(1).warmupLaunches(1).bytesRead(1)
        .bytesWritten(1).bytes(2_000_000_000L).bandwidth(2.0e12).method("m").measuredAt(t).build();
    assertThat(send(Addresses.RESULTS, memcpy).ok()).isTrue();
    // A read-heavy kernel of the same run beat memcpy: it sets the measured ceiling.
    KernelResult gather = memcpy.toBuilder().id(java.util.UUID.randomUUID()).kernel("gather-sorted")
        .bytes(2_100_000_000L).bandwidth(2.1e12).build();
    assertThat(send(Addresses.RESULTS, gather).ok()).isTrue();

    JsonNode body = Http.json(http.get("/api/comparisons?kernel=stride_copy_fp32&params=elements%3D1024%3Bstride%3D4"));

    JsonNode models = body.get("models");
    assertThat(models).hasSize(2);
    JsonNode gpu = models.get(0);
    assertThat(gpu.get("model").asText()).isEqualTo(H100.name());
    assertThat(gpu.get("resultId").asText()).isEqualTo(latest.id().toString());
    assertThat(gpu.get("ceilingBandwidth").asDouble()).isEqualTo(2.1e12);
    assertThat(gpu.get("ceilingKernel").asText()).isEqualTo("gather-sorted");
    assertThat(gpu.get("fractionOfCeiling").asDouble()).isCloseTo(latest.bandwidth() / 2.1e12,
        org.assertj.core.data.Offset.offset(1e-12));
    assertThat(gpu.get("fractionOfPeak").asDouble()).isCloseTo(latest.bandwidth() / H100.theoreticalPeakBytesPerSecond(),
        org.assertj.core.data.Offset.offset(1e-12));
    assertThat(models.get(1).get("ceilingBandwidth").isNull()).as("a run without memcpy-d2d").isTrue();
    assertThat(models.get(1).get("fractionOfPeak").isNull()).isTrue();
    assertThat(http.get("/api/comparisons?kernel=x").statusCode()).isEqualTo(400);
  }

  @Test
  void results_dropAfterStableHistory_recordedListedAndPublished() throws Exception {
    BlockingQueue<JsonObject> published = new LinkedBlockingQueue<>();
    local.vertx().eventBus().<JsonObject>consumer(RegressionWatch.LIVE_REGRESSIONS, m -> published.add(m.body()));
    Instant t = Instant.parse("2026-11-01T00:00:00Z");
    for (int i = 0; i < 8; i++) {
      KernelResult r = Fixtures.result("s", "r" + i, "a1", H100, 4, true, t.plusSeconds(3600L * i));
      assertThat(send(Addresses.RESULTS, r).ok()).isTrue();
    }
    KernelResult base = Fixtures.result("s", "r9", "a1", H100, 4, true, t.plusSeconds(3600L * 9));
    KernelResult slow = Fixtures.slower(base, 1.25).toBuilder().agentVersion("0.2.0").build();
    assertThat(send(Addresses.RESULTS, slow).ok()).isTrue();

    JsonObject event = published.poll(10, TimeUnit.SECONDS);
    assertThat(event).isNotNull();
    assertThat(event.getString("kind")).isEqualTo("REGRESSION");
    assertThat(event.getString("resultId")).isEqualTo(slow.id().toString());
    JsonNode listed = Http.json(http.get("/api/regressions?device=" + H100.id()));
    assertThat(listed).hasSize(1);
    assertThat(listed.get(0).get("changeFraction").asDouble()).isCloseTo(-0.2, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(listed.get(0).get("environmentDiff").get("agentVersion").get("after").asText()).isEqualTo("0.2.0");
    assertThat(http.get("/api/regressions?kind=worse").statusCode()).isEqualTo(400);
  }

  @Test
  void result_schemaVersionZero_refusedWithReasonAndNotStored() {
    KernelResult r = Fixtures.withSchemaVersion(Fixtures.result("s", "r", "a1", H100, 4, true, Instant.now()), 0);

    Ack ack = send(Addresses.RESULTS, r);

    assertThat(ack.ok()).isFalse();
    assertThat(ack.reason()).contains("schema version 0 is unknown");
    assertThat(Http.json(http.get("/api/results"))).isEmpty();
  }

  @Test
  void getResults_modelParamsTimeRangeAndAfterCursor_pageThroughMatches() {
    Instant t = Instant.parse("2026-11-01T00:00:00Z");
    for (int i = 0; i < 6; i++) {
      send(Addresses.RESULTS, Fixtures.result("s", "r", "a1", H100, 4, true, t.plusSeconds(i)));
      send(Addresses.RESULTS, Fixtures.result("s", "r", "a1", CPU, 8, true, t.plusSeconds(i)));
    }
    String base = "/api/results?model=" + H100.name().replace(" ", "%20") + "&params=elements%3D1024%3Bstride%3D4"
        + "&from=2026-11-01T00:00:01Z&to=2026-11-01T00:00:05Z&limit=2";

    JsonNode first = Http.json(http.get(base));
    JsonNode second = Http.json(http.get(base + "&after=" + first.get(1).get("id").asText()));

    assertThat(first).hasSize(2);
    assertThat(first.get(0).get("measuredAt").asText()).isEqualTo("2026-11-01T00:00:04Z");
    assertThat(second).hasSize(2);
    assertThat(second.get(1).get("measuredAt").asText()).isEqualTo("2026-11-01T00:00:01Z");
    assertThat(http.get("/api/results?from=yesterday").statusCode()).isEqualTo(400);
  }

  @Test
  void openApiAndMetrics_served() {
    HttpResponse<String> spec = http.get("/api/openapi.yaml");
    assertThat(spec.statusCode()).isEqualTo(200);
    assertThat(spec.body()).startsWith("openapi: 3.1.0").contains("/api/schedules/{id}/pause", "/api/comparisons");
    send(Addresses.RESULTS, Fixtures.result("s", "r", "a1", H100, 4, true, Instant.now()));

    String metrics = http.get("/metrics").body();

    assertThat(metrics).contains("busload_results_ingested_total 1.0", "busload_agents_online 1.0", "busload_runs_queued");
    JsonNode devices = Http.json(http.get("/api/devices"));
    assertThat(devices).hasSize(2);
    assertThat(devices.get(1).get("fingerprint").asText()).isEqualTo(H100.fingerprint());
  }
}
