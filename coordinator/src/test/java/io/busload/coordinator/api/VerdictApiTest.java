package io.busload.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.coordinator.Fixtures;
import io.busload.coordinator.Http;
import io.busload.coordinator.analysis.RegressionWatch;
import io.busload.protocol.CacheResidency;
import io.busload.protocol.Clocks;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.KernelResult;
import io.busload.protocol.ResultStatus;
import io.busload.protocol.Sampling;
import io.busload.protocol.StopReason;
import io.vertx.core.json.JsonObject;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/**
 * The verdicts' REST resources (docs/contract.md) and {@code busload compare --coordinator}, over real HTTP and a
 * real PostgreSQL.
 */
class VerdictApiTest {
  private static final Instant T = Instant.parse("2026-11-01T00:00:00Z");
  private static final String STRIDE_4 = "elements%3D1024%3Bstride%3D4";
  private final List<DeviceInfo> gpus = new ArrayList<>();

  @RegisterExtension final LocalCoordinator local = new LocalCoordinator();
  private Http http;
  private final SplittableRandom random = new SplittableRandom(13);

  @BeforeEach
  void start() throws Exception {
    http = local.http();
    for (int i = 0; i < 6; i++) {
      gpus.add(Fixtures.gpu("g" + i, 0));
    }
    local.deliver(Fixtures.hello("a1", gpus.toArray(DeviceInfo[]::new)));
  }

  /** A stride=4 result at {@code bandwidth} B/s, its 10 samples spread 0.2% around it. */
  private KernelResult result(DeviceInfo device, String sweep, double bandwidth, Instant at) {
    KernelResult r = Fixtures.result(sweep, "run-" + sweep, "a1", device, 4, true, at);
    List<Double> samples = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      samples.add(r.bytes() / (bandwidth * (1 + 0.002 * (random.nextDouble() - 0.5))));
    }
    double median = r.bytes() / bandwidth;
    return KernelResult.builder().schemaVersion(r.schemaVersion()).id(r.id()).runId(r.runId()).sweepId(r.sweepId())
        .agentId(r.agentId()).agentVersion(r.agentVersion()).fatbinHash(r.fatbinHash()).device(r.device())
        .suite(r.suite()).kernel(r.kernel()).params(r.params()).valid(true).mismatches(List.of())
        .medianSeconds(median).minSeconds(median).maxSeconds(median).relativeSpread(0.002).samples(samples)
        .launchesPerSample(10).warmupLaunches(5).bytesRead(r.bytesRead()).bytesWritten(r.bytesWritten())
        .bytes(r.bytes()).bandwidth(bandwidth)
        .method("GPU before: sm 1980 MHz, mem 2619 MHz, " + "40 C, throttle reasons 0x0, no other processes; after: sm 1980 MHz, mem 2619 MHz, 41 C, throttle reasons " + "0x0, no other processes")
        .measuredAt(r.measuredAt()).build();
  }

  private double noisy(double level) {
    return level * (1 + 0.002 * (random.nextDouble() - 0.5));
  }

  @Test
  void changePoint_levelDropsFivePercent_recordedOnceWithItsSlowerVerdictAndPublished() throws Exception {
    BlockingQueue<JsonObject> published = new LinkedBlockingQueue<>();
    local.vertx().eventBus().<JsonObject>consumer(RegressionWatch.LIVE_REGRESSIONS, m -> published.add(m.body()));
    DeviceInfo gpu = gpus.getFirst();
    List<KernelResult> sent = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      KernelResult r = result(gpu, "s" + i, noisy(i < 20 ? 2.0e12 : 1.9e12), T.plusSeconds(3600L * i));
      sent.add(r);
      local.deliver(r);
    }

    JsonObject event = null;
    for (JsonObject e = published.poll(10, TimeUnit.SECONDS); e != null; e = published.poll(2, TimeUnit.SECONDS)) {
      if ("e-divisive".equals(e.getString("method"))) {
        event = e;
      }
    }
    assertThat(event).as("an E-Divisive change point published").isNotNull();
    JsonNode listed = Http.json(http.get("/api/change-points?device=" + gpu.id()));
    assertThat(listed).hasSize(1);
    JsonNode change = listed.get(0);
    assertThat(change.get("kind").asText()).isEqualTo("REGRESSION");
    assertThat(change.get("firstResultId").asText()).isEqualTo(sent.get(20).id().toString());
    assertThat(change.get("changeFraction").asDouble()).isBetween(-0.06, -0.04);
    assertThat(change.get("verdict").get("verdict").asText()).isEqualTo("SLOWER");
    assertThat(change.get("verdict").get("relative").asDouble()).isBetween(-0.06, -0.04);

    JsonNode annotations = Http.json(http.get("/api/history/annotations?kernel=stride_copy_fp32&params=" + STRIDE_4));
    assertThat(annotations).hasSize(1);
    assertThat(annotations.get(0).get("points").asInt()).isEqualTo(30);
    assertThat(annotations.get(0).get("changePoints")).hasSize(1);
    assertThat(annotations.get(0).get("changePoints").get(0).get("resultId").asText())
        .isEqualTo(sent.get(20).id().toString());
    assertThat(annotations.get(0).get("regressions").size()).isPositive();
  }

  @Test
  void acceptedChange_withoutReason_refusedNamingWhyAndNothingStored() {
    HttpResponse<String> refused = http.post("/api/accepted-changes", "{\"device\":\"" + gpus.getFirst().id()
        + "\",\"why\":\"  \"}");
    assertThat(refused.statusCode()).isEqualTo(400);
    assertThat(Http.json(refused).get("field").asText()).isEqualTo("why");
    HttpResponse<String> unknown = http.post("/api/accepted-changes", "{\"device\":\"nope/cuda:9\",\"why\":\"new\"}");
    assertThat(unknown.statusCode()).isEqualTo(400);
    assertThat(Http.json(unknown).get("detail").asText()).isEqualTo("unknown device 'nope/cuda:9'");
    assertThat(Http.json(http.get("/api/accepted-changes"))).isEmpty();
  }

  @Test
  void acceptedChange_badBodies_400NamingTheFieldWithItsDetailAndNothingStored() {
    String gpu = gpus.getFirst().id();
    String[][] cases = {
        {"{\"device\":", "body", "not JSON: "},
        {"", "body", "a JSON object {\"device\", \"kernel\", \"params\", \"from\", \"why\"}"},
        {"null", "body", "a JSON object {\"device\", \"kernel\", \"params\", \"from\", \"why\"}"},
        {"[{\"device\":\"" + gpu + "\"}]", "body", "a JSON object {\"device\", \"kernel\", \"params\", \"from\", \"why\"}"},
        {"\"" + gpu + "\"", "body", "a JSON object {\"device\", \"kernel\", \"params\", \"from\", \"why\"}"},
        {"{\"why\":\"new driver\"}", "device", "missing; the device whose baseline restarts, such as host/cuda:0"},
        {"{\"device\":7,\"why\":\"new driver\"}", "device", "must be a string"},
        {"{\"device\":\"" + gpu + "\",\"why\":true}", "why", "must be a string"},
        {"{\"device\":\"" + gpu + "\",\"why\":\"x\",\"kernel\":{\"a\":1}}", "kernel", "must be a string"},
        {"{\"device\":\"" + gpu + "\",\"why\":\"x\",\"params\":[\"a\"]}", "params", "must be a string"},
        {"{\"device\":\"" + gpu + "\",\"why\":\"x\",\"by\":1.5}", "by", "must be a string"},
        {"{\"device\":\"" + gpu + "\",\"why\":\"x\",\"from\":1700000000}", "from", "must be a string"},
        {"{\"device\":\"" + gpu + "\",\"why\":\"a\\u0000b\"}", "why", "must not contain NUL characters"},
        {"{\"device\":\"" + gpu + "\",\"why\":\"" + "w".repeat(2001) + "\"}", "why", "at most 2000 characters, got 2001"},
        {"{\"device\":\"" + gpu + "\",\"why\":\"x\",\"by\":\"" + "b".repeat(201) + "\"}", "by", "at most 200 characters, got 201"},
        {"{\"device\":\"" + gpu + "\",\"why\":\"x\",\"params\":\"stride=4\"}", "params", "params need a kernel"},
        {"{\"device\":\"" + gpu + "\",\"why\":\"x\",\"from\":\"yesterday\"}", "from",
            "not an ISO-8601 instant such as 2026-11-01T00:00:00Z: 'yesterday'"},
    };
    for (String[] c : cases) {
      HttpResponse<String> refused = http.post("/api/accepted-changes", c[0]);
      assertThat(refused.statusCode()).as(c[0]).isEqualTo(400);
      JsonNode problem = Http.json(refused);
      assertThat(problem.get("field").asText()).as(c[0]).isEqualTo(c[1]);
      assertThat(problem.get("detail").asText()).as(c[0]).startsWith(c[2]);
    }
    assertThat(Http.json(http.get("/api/accepted-changes"))).isEmpty();
    // Padding and unknown fields are no fault: the mark is stored with its fields trimmed.
    HttpResponse<String> accepted = http.post("/api/accepted-changes", "{\"device\":\" " + gpu + " \",\"kernel\":"
        + "\"\",\"why\":\" new card \",\"by\":\"ana\",\"colour\":[1]}");
    assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(201);
    JsonNode mark = Http.json(accepted);
    assertThat(mark.get("deviceId").asText()).isEqualTo(gpu);
    assertThat(mark.get("kernel").isNull()).isTrue();
    assertThat(mark.get("reason").asText()).isEqualTo("new card");
    assertThat(mark.get("acceptedBy").asText()).isEqualTo("ana via tests");
    assertThat(accepted.headers().firstValue("Location")).hasValue("/api/accepted-changes?device=" + gpu);
  }

  @Test
  void acceptedChange_withReason_restartsTheBaselineAndChangesNoResult() throws Exception {
    DeviceInfo gpu = gpus.getFirst();
    for (int i = 0; i < 10; i++) {
      local.deliver(result(gpu, "s", noisy(2.0e12), T.plusSeconds(3600L * i)));
    }
    String before = http.get("/api/results?device=" + gpu.id()).body();
    Instant from = T.plusSeconds(3600L * 10);

    HttpResponse<String> accepted = http.post("/api/accepted-changes", "{\"device\":\"" + gpu.id() + "\",\"kernel\":"
        + "\"stride_copy_fp32\",\"from\":\"" + from + "\",\"why\":\"driver 13.1: the new level is expected\"}");

    assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(201);
    JsonNode mark = Http.json(accepted);
    assertThat(mark.get("acceptedBy").asText()).isEqualTo("tests");
    assertThat(mark.get("reason").asText()).isEqualTo("driver 13.1: the new level is expected");
    assertThat(http.get("/api/results?device=" + gpu.id()).body()).isEqualTo(before);
    // 20% lower after the mark: the z-score's history starts at the mark, so this is no regression (without the
    // mark it is one: ScheduleAndAnalysisApiTest.results_dropAfterStableHistory_recordedListedAndPublished).
    for (int i = 10; i < 14; i++) {
      local.deliver(result(gpu, "s", noisy(1.6e12), T.plusSeconds(3600L * i)));
    }
    Thread.sleep(1000);
    assertThat(Http.json(http.get("/api/regressions?device=" + gpu.id()))).isEmpty();
    JsonNode listed = Http.json(http.get("/api/accepted-changes?device=" + gpu.id() + "&kernel=stride_copy_fp32"));
    assertThat(listed).hasSize(1);
    assertThat(listed.get(0).get("from").asText()).isEqualTo(from.toString());
    JsonNode annotations = Http.json(http.get("/api/history/annotations?kernel=stride_copy_fp32&params=" + STRIDE_4
        + "&device=" + gpu.id()));
    assertThat(annotations.get(0).get("accepted")).hasSize(1);
    // The step sits at the mark: the history is cut there, so no change point is drawn across it.
    assertThat(annotations.get(0).get("changePoints")).isEmpty();
  }

  private void twoSweeps() {
    DeviceInfo gpu = gpus.getFirst();
    local.deliver(result(gpu, "sweep-a", 2.0e12, T));
    KernelResult memcpyA = Fixtures.result("sweep-a", "run-a", "a1", gpu, 8, true, T);
    local.deliver(memcpyA);
    local.deliver(result(gpu, "sweep-b", 1.8e12, T.plusSeconds(60)));
    KernelResult memcpyB = Fixtures.result("sweep-b", "run-b", "a1", gpu, 8, true, T.plusSeconds(60));
    local.deliver(memcpyB);
  }

  @Test
  void verdicts_twoSweeps_stridedCopySlowerWithItsInterval() {
    twoSweeps();
    JsonNode body = Http.json(http.get("/api/verdicts?baseline=sweep-a&candidate=sweep:sweep-b"));
    JsonNode rows = body.get("rows");
    assertThat(rows).hasSize(2);
    JsonNode strided = rows.get(0).get("params").asText().endsWith("stride=4") ? rows.get(0) : rows.get(1);
    assertThat(strided.get("verdict").asText()).isEqualTo("SLOWER");
    assertThat(strided.get("relative").asDouble()).isBetween(-0.11, -0.09);
    assertThat(strided.get("relativeUpper").asDouble()).isNegative();
    assertThat(body.get("counts").get("SLOWER").asInt()).isEqualTo(1);
    // The stride=8 results have 3 samples each: too few for a verdict, and it says so.
    JsonNode few = strided == rows.get(0) ? rows.get(1) : rows.get(0);
    assertThat(few.get("verdict").asText()).isEqualTo("UNCLEAR");
    assertThat(few.get("reason").asText()).contains("has 3 samples; a verdict needs at least 5 on each side");

    HttpResponse<String> unknown = http.get("/api/verdicts?baseline=sweep-zz&candidate=sweep-b");
    assertThat(unknown.statusCode()).isEqualTo(400);
    assertThat(Http.json(unknown).get("field").asText()).isEqualTo("baseline");
    assertThat(Http.json(unknown).get("detail").asText()).contains("'sweep-zz'");
  }

  @Test
  void compareCli_twoSweepsOnTheCoordinator_exit1ThenUnknownSweepExit2() {
    twoSweeps();
    String url = "http://127.0.0.1:" + local.httpPort();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = io.busload.agent.Main.commandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));

    assertThat(cli.execute("compare", "--coordinator", url, "sweep-a", "sweep-b")).as(err.toString()).isEqualTo(1);
    assertThat(out.toString()).contains("| stride_copy_fp32 | elements=1024;stride=4 |").contains("**SLOWER**")
        .contains("0 FASTER, 1 SLOWER");
    assertThat(cli.execute("compare", "--coordinator", url, "sweep-a", "sweep-a")).as(err.toString()).isZero();
    assertThat(cli.execute("compare", "--coordinator", url, "device:" + gpus.getFirst().id(), "sweep-a"))
        .as(err.toString()).isZero();
    assertThat(cli.execute("compare", "--coordinator", url, "sweep-a", "sweep-zz")).isEqualTo(2);
    assertThat(err.toString()).contains("CANDIDATE 'sweep-zz': no such file, and " + url
        + " knows no sweep or device by that id");
  }

  @Test
  void cohortFlags_oneCardTenPercentSlowAmongSix_flaggedInWords() {
    for (int d = 0; d < gpus.size(); d++) {
      double level = d == 2 ? 1.8e12 : 2.0e12 * (1 + 0.004 * (d - 2.5));
      for (int i = 0; i < 3; i++) {
        local.deliver(result(gpus.get(d), "s", noisy(level), Instant.now().minusSeconds(600L * i)));
      }
    }
    JsonNode body = Http.json(http.get("/api/cohort-flags"));
    assertThat(body.get("figures").asInt()).isEqualTo(6);
    JsonNode flags = body.get("flags");
    assertThat(flags).hasSize(1);
    assertThat(flags.get(0).get("deviceId").asText()).isEqualTo(gpus.get(2).id());
    assertThat(flags.get(0).get("sentence").asText()).matches("this H100 is 1\\d% below its 5 peers on "
        + "stride_copy_fp32 \\(elements=1024;stride=4\\), at the same clocks");
    assertThat(Http.json(http.get("/api/cohort-flags?device=" + gpus.get(1).id())).get("flags")).isEmpty();
    assertThat(http.get("/api/cohort-flags?days=0").statusCode()).isEqualTo(400);
  }

  /**
   * {@code r} as an agent reports it with typed clocks: its clocks read during sampling at {@code smMHz} (memory 2619
   * MHz), while
   * its sentence, as {@link #result} words it, still says 1980 MHz.
   */
  private static KernelResult typedClocks(KernelResult r, int smMHz) {
    return r.withSampling(ResultStatus.MEASURED, new Sampling(r.samples().size(), 0, 0, StopReason.SPREAD_SETTLED,
        new Clocks(Clocks.Reading.READ, "NVML 12.580.82", smMHz, smMHz, 2619, 2619, 0L, 0, false),
        CacheResidency.of(r.bytes(), r.device().l2Bytes(), false)));
  }

  @Test
  void verdicts_typedClocksLowerThoughSentencesAgree_slowerAtTheTypedLowerClock() {
    DeviceInfo gpu = gpus.getFirst();
    local.deliver(typedClocks(result(gpu, "sweep-a", 2.0e12, T), 1980));
    local.deliver(typedClocks(result(gpu, "sweep-b", 1.8e12, T.plusSeconds(60)), 1755));

    JsonNode row = Http.json(http.get("/api/verdicts?baseline=sweep-a&candidate=sweep-b")).get("rows").get(0);

    assertThat(row.get("verdict").asText()).isEqualTo("SLOWER");
    assertThat(row.get("notes").path(0).asText()).as(row.toString())
        .isEqualTo("slower at a lower SM clock (1755 MHz vs 1980 MHz)");
  }

  @Test
  void cohortFlags_typedClocksDifferThoughSentencesAgree_sentenceNamesTheTypedClocks() {
    for (int d = 0; d < gpus.size(); d++) {
      double level = d == 2 ? 1.8e12 : 2.0e12 * (1 + 0.004 * (d - 2.5));
      for (int i = 0; i < 3; i++) {
        KernelResult r = result(gpus.get(d), "s", noisy(level), Instant.now().minusSeconds(600L * i));
        local.deliver(typedClocks(r, d == 2 ? 1755 : 1980));
      }
    }
    JsonNode flags = Http.json(http.get("/api/cohort-flags")).get("flags");

    assertThat(flags).hasSize(1);
    assertThat(flags.get(0).get("sentence").asText()).matches("this H100 is 1\\d% below its 5 peers on "
        + "stride_copy_fp32 \\(elements=1024;stride=4\\), at other clocks \\(SM 1755 MHz vs 1980 MHz, memory 2619 MHz"
        + " vs 2619 MHz\\)");
  }
}
