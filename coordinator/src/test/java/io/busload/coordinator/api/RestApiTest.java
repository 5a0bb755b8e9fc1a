package io.busload.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.coordinator.Fixtures;
import io.busload.coordinator.Http;
import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.KernelResult;
import io.vertx.core.Future;
import io.vertx.core.eventbus.Message;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The REST API of a running coordinator (a plain, non-clustered Vert.x: the event bus is local, everything
 * else is real), driven by a real HTTP client on loopback.
 */
class RestApiTest {
  private static final DeviceInfo CPU = Fixtures.cpu("h1");
  private static final DeviceInfo GPU = Fixtures.gpu("h1", 0);

  @RegisterExtension final LocalCoordinator local = new LocalCoordinator();
  private Http http;

  @BeforeEach
  void start() {
    http = local.http();
    assertThat(local.request(Addresses.AGENT_HELLO, Fixtures.hello("a1", CPU, GPU)).ok()).isTrue();
  }

  @Test
  void getAgents_afterHello_listsAgentOnlineWithDevicesAndFingerprints() {
    HttpResponse<String> response = http.get("/api/agents");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
    JsonNode agent = Http.json(response).get(0);
    assertThat(agent.get("agentId").asText()).isEqualTo("a1");
    assertThat(agent.get("online").asBoolean()).isTrue();
    assertThat(Instant.parse(agent.get("lastSeen").asText())).isBefore(Instant.now().plusSeconds(1));
    JsonNode gpu = agent.get("devices").get(1);
    assertThat(gpu.get("id").asText()).isEqualTo(GPU.id());
    assertThat(gpu.get("name").asText()).isEqualTo(GPU.name());
    assertThat(gpu.get("l2Bytes").asLong()).isEqualTo(GPU.l2Bytes());
    assertThat(gpu.get("fingerprint").asText()).isEqualTo(GPU.fingerprint());
    assertThat(gpu.has("runId")).isTrue();
    assertThat(gpu.get("runId").isNull()).isTrue();
    assertThat(gpu.has("info")).isFalse();
  }

  @Test
  void postSweep_namedDevices_createsOneQueuedRunPerDevice() {
    HttpResponse<String> created = http.post("/api/sweeps",
        "{\"suite\":\"stride\",\"devices\":[\"h1/cpu\",\"h1/cuda:0\"],\"options\":{\"elements\":\"65536\"}}");

    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    JsonNode body = Http.json(created);
    String id = body.get("id").asText();
    assertThat(created.headers().firstValue("location")).hasValue("/api/sweeps/" + id);
    assertThat(body.get("runs")).hasSize(2);
    assertThat(body.get("runs").get(0).get("deviceId").asText()).isEqualTo("h1/cpu");
    JsonNode sweep = Http.json(http.get("/api/sweeps/" + id));
    assertThat(sweep.get("suite").asText()).isEqualTo("stride");
    assertThat(sweep.get("state").asText()).isIn("QUEUED", "RUNNING");
    assertThat(sweep.get("total").asInt()).isPositive();
    assertThat(sweep.get("runs").get(1).get("runId").asText()).isEqualTo(body.get("runs").get(1).get("runId").asText());
    assertThat(Http.json(http.get("/api/sweeps"))).hasSize(1);
  }

  @Test
  void postSweep_devicesOmitted_targetsEveryOnlineDevice() {
    HttpResponse<String> created = http.post("/api/sweeps", "{\"suite\":\"stride\"}");

    assertThat(created.statusCode()).isEqualTo(201);
    assertThat(Http.json(created).get("runs")).hasSize(2);
  }

  /** Each row: a sweep's body, the field the 400 names, and a part of its detail; nothing is stored. */
  @ParameterizedTest(name = "{1}: {2}")
  @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
      {"suite":"nope","devices":["h1/cpu"]}               | suite             | unknown suite 'nope'
      {"suite":"stride","devices":["h1/cpu","h9/cuda:3"]} | devices           | h9/cuda:3
      {"suite":"stride","devices":[]}                     | devices           | no device
      {"suite":"stride","options":{"elements":"-5"}}      | options.elements  | elements
      {"suite":"stride","options":{"warp_size":"64"}}     | options.warp_size | unknown
      {"suite":"stride",                                  | body              | malformed JSON
      """)
  void postSweep_badBody_400NamingTheFieldAndNothingStored(String body, String field, String detailPart) {
    HttpResponse<String> response = http.post("/api/sweeps", body);

    assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
    assertThat(response.headers().firstValue("content-type")).hasValue(Problem.CONTENT_TYPE);
    JsonNode problem = Http.json(response);
    assertThat(problem.get("type").asText()).isEqualTo("about:blank");
    assertThat(problem.get("title").asText()).isEqualTo("Bad Request");
    assertThat(problem.get("status").asInt()).isEqualTo(400);
    assertThat(problem.get("field").asText()).isEqualTo(field);
    assertThat(problem.get("detail").asText()).contains(detailPart);
    assertThat(Http.json(http.get("/api/sweeps"))).as("nothing stored").isEmpty();
  }

  @Test
  void postSweep_bodyOverLimit_413NamingBodyAndNothingStored() {
    byte[] big = new byte[(int) Requests.BODY_LIMIT + 10];
    java.util.Arrays.fill(big, (byte) ' ');

    HttpResponse<String> response = http.post("/api/sweeps", big);

    assertThat(response.statusCode()).isEqualTo(413);
    assertThat(response.headers().firstValue("content-type")).hasValue(Problem.CONTENT_TYPE);
    assertThat(Http.json(response).get("field").asText()).isEqualTo("body");
    assertThat(Http.json(http.get("/api/sweeps"))).isEmpty();
  }

  @Test
  void getSweep_unknownId_404Problem() {
    HttpResponse<String> response = http.get("/api/sweeps/does-not-exist");

    assertThat(response.statusCode()).isEqualTo(404);
    assertThat(response.headers().firstValue("content-type")).hasValue(Problem.CONTENT_TYPE);
    assertThat(Http.json(response).get("detail").asText()).contains("does-not-exist");
  }

  @Test
  void getResults_csvByAcceptAndByFormat_headerThenOneRowPerResult() {
    KernelResult valid = store(Fixtures.result("s1", "r1", "a1", GPU, 4, true, Instant.parse("2026-11-01T10:00:00Z")));
    KernelResult invalid = store(Fixtures.result("s1", "r1", "a1", GPU, 8, false, Instant.parse("2026-11-01T10:00:01Z")));
    store(Fixtures.result("s2", "r2", "a1", CPU, 2, true, Instant.parse("2026-11-01T10:00:02Z")));

    HttpResponse<String> byAccept = http.get("/api/results?sweepId=s1", "text/csv");
    HttpResponse<String> byFormat = http.get("/api/results?sweepId=s1&format=csv");

    assertThat(byAccept.statusCode()).isEqualTo(200);
    assertThat(byAccept.headers().firstValue("content-type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/csv"));
    assertThat(byFormat.body()).isEqualTo(byAccept.body());
    List<String> lines = byAccept.body().lines().toList();
    assertThat(lines).hasSize(3);
    // The CSV ends with how each result was measured; these fixtures were not timed by an agent, so only the status.
    assertThat(lines.get(0)).isEqualTo("id,sweepId,runId,measuredAt,deviceId,deviceName,kernel,params,valid,"
        + "medianSeconds,minSeconds,maxSeconds,relativeSpread,samples,bytes,bandwidth,"
        + String.join(",", io.busload.protocol.ResultCsv.SAMPLING) + ","
        + String.join(",", io.busload.protocol.ResultCsv.ENERGY) + ","
        + String.join(",", io.busload.protocol.ResultCsv.HEALTH));
    // Neither energy nor health was read: "not read" in their first cells, the figures empty (never 0).
    String notRead = ",not read" + ",".repeat(io.busload.protocol.ResultCsv.ENERGY.size() - 1) + ",not read"
        + ",".repeat(io.busload.protocol.ResultCsv.HEALTH.size() - 1);
    String noSampling = ",".repeat(io.busload.protocol.ResultCsv.SAMPLING.size() - 1) + notRead;
    assertThat(lines.get(1)).isEqualTo(invalid.id() + ",s1,r1,2026-11-01T10:00:01Z,h1/cuda:0,NVIDIA H100 80GB HBM3,"
        + "stride_copy_fp32,elements=1024;stride=8,false," + invalid.medianSeconds() + "," + invalid.minSeconds() + ","
        + invalid.maxSeconds() + ",0.03,3,8388608,,DEVICE_FAILED" + noSampling);
    assertThat(lines.get(2)).startsWith(valid.id() + ",").endsWith(",3,8388608," + valid.bandwidth() + ",MEASURED"
        + noSampling);
  }

  @Test
  void getResults_json_newestFirstFilteredAndLimited() throws Exception {
    List<KernelResult> gpuResults = new ArrayList<>();
    for (int i = 0; i < 1200; i++) {
      gpuResults.add(Fixtures.result("s1", "r1", "a1", GPU, 1 + i % 32, true,
          Instant.parse("2026-11-01T10:00:00Z").plusMillis(i)));
    }
    storeAtOnce(gpuResults);
    store(Fixtures.result("s1", "r1", "a1", CPU, 4, true, Instant.parse("2026-11-02T10:00:00Z")));

    JsonNode all = Http.json(http.get("/api/results?sweepId=s1&device=h1/cuda:0"));
    JsonNode two = Http.json(http.get("/api/results?device=h1/cuda:0&kernel=stride_copy_fp32&limit=2"));
    JsonNode byDefault = Http.json(http.get("/api/results"));

    assertThat(all).hasSize(1000);
    assertThat(all.get(0).get("measuredAt").asText()).isEqualTo("2026-11-01T10:00:01.199Z");
    assertThat(two).hasSize(2);
    assertThat(byDefault).hasSize(1000);
    assertThat(byDefault.get(0).get("device").get("id").asText()).isEqualTo("h1/cpu");
    assertThat(Http.json(http.get("/api/results?limit=5000"))).hasSize(1201);
  }

  @Test
  void getResults_badLimit_400NamingLimit() {
    HttpResponse<String> response = http.get("/api/results?limit=ten");

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(Http.json(response).get("field").asText()).isEqualTo("limit");
  }

  @Test
  void routing_unknownPathUnderAResourceOrWrongMethod_404Or405Problem() {
    HttpResponse<String> deeper = http.get("/api/sweeps/a/b");
    HttpResponse<String> wrongMethod = http.delete("/api/sweeps");
    HttpResponse<String> unknownAction = http.post("/api/schedules/x/pausex", "{}");

    assertThat(deeper.statusCode()).isEqualTo(404);
    assertThat(deeper.headers().firstValue("content-type")).hasValue(Problem.CONTENT_TYPE);
    assertThat(Http.json(deeper).get("detail").asText()).isEqualTo("no such resource: /api/sweeps/a/b");
    assertThat(wrongMethod.statusCode()).isEqualTo(405);
    assertThat(Http.json(wrongMethod).get("detail").asText()).isEqualTo("DELETE is not allowed on /api/sweeps");
    assertThat(unknownAction.statusCode()).isEqualTo(404);
    assertThat(Http.json(http.get("/api/sweeps/"))).isEmpty();
  }

  /** How a result was measured goes over the event bus, into the store and out through REST, typed. */
  @Test
  void getResults_timedResult_statusAndSamplingInJsonAndCsv() {
    io.busload.protocol.Sampling sampling = new io.busload.protocol.Sampling(8, 1, 1,
        io.busload.protocol.StopReason.SPREAD_SETTLED, new io.busload.protocol.Clocks(
            io.busload.protocol.Clocks.Reading.READ, "NVML, driver 580.82.07", 1980, 1980, 2619, 2619, 0x4L, 2,
            false), io.busload.protocol.CacheResidency.of(8L << 20, GPU.l2Bytes(), true));
    KernelResult timed = store(Fixtures.result("s9", "r9", "a1", GPU, 4, true, Instant.parse("2026-11-01T10:00:00Z"))
        .withSampling(io.busload.protocol.ResultStatus.MEASURED, sampling));

    KernelResult back = io.busload.protocol.JsonCodec.fromJson(
        http.get("/api/results?sweepId=s9").body().getBytes(), KernelResult[].class)[0];
    List<String> csv = http.get("/api/results?sweepId=s9&format=csv").body().lines().toList();

    assertThat(back.id()).isEqualTo(timed.id());
    assertThat(back.status()).isEqualTo(io.busload.protocol.ResultStatus.MEASURED);
    assertThat(back.sampling()).isEqualTo(sampling);
    assertThat(csv.get(1)).endsWith(",MEASURED,8,1,1,SPREAD_SETTLED,READ,\"NVML, driver 580.82.07\",1980,1980,2619,"
        + "2619,0x4,2,false,CACHE_STUDY,8388608,,not read,,,,,,,,,not read,,,,"); // othersBusy empty: measured alone
  }

  private KernelResult store(KernelResult result) {
    assertThat(local.request(Addresses.RESULTS, result).ok()).isTrue();
    return result;
  }

  /**
   * All sent before any ack is awaited, as a busy agent's outbox sends them: the coordinator stores them in a few
   * batches rather than one commit each.
   */
  private void storeAtOnce(List<KernelResult> results) throws Exception {
    List<Future<Message<Ack>>> acks = results.stream()
        .map(r -> local.vertx().eventBus().<Ack>request(Addresses.RESULTS, r)).toList();
    Future.all(acks).await(60, TimeUnit.SECONDS);
    assertThat(acks).allSatisfy(a -> assertThat(a.result().body().ok()).as(a.result().body().reason()).isTrue());
  }
}
