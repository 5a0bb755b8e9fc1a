package io.busload.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import io.busload.coordinator.Fixtures;
import io.busload.coordinator.Http;
import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import io.busload.protocol.Origin;
import io.busload.protocol.ResultCsv;
import io.vertx.core.eventbus.MessageConsumer;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code POST /api/pushes}: a real coordinator (plain Vert.x, real PostgreSQL) over real HTTP takes files
 * as {@code ./busload run} writes them, stores each whole or not at all, and shows what it stored in the views the
 * dashboard reads, marked as pushed. The end-to-end test with the real CPU run and the real client is deploy's
 * PushIT.
 */
class PushApiTest {
  private static final DeviceInfo LAB = Fixtures.gpu("lab-gpu", 0);
  private static final Instant T = Instant.parse("2026-11-20T10:00:00Z");

  @RegisterExtension final LocalCoordinator local = new LocalCoordinator();
  private Http http;
  private final List<KernelResult> live = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws Exception {
    http = local.http();
    MessageConsumer<KernelResult> consumer =
        local.vertx().eventBus().consumer(Addresses.LIVE_RESULTS, m -> live.add(m.body()));
    consumer.completion().await(10, TimeUnit.SECONDS);
  }

  /** Standalone results, as ./busload run makes them: no run, no sweep; strides 1 to n. */
  private static List<KernelResult> standalone(DeviceInfo device, int n) {
    List<KernelResult> results = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      results.add(Fixtures.result(null, null, "lab-gpu", device, i + 1, true, T.plusSeconds(i)));
    }
    return results;
  }

  /** As ./busload run --format json prints them. */
  private static String json(List<KernelResult> results) throws Exception {
    return JsonCodec.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(results) + "\n";
  }

  /** A CSV with every column the agent writes but in another order and quoted by another writer: read by name. */
  private static String csv(List<KernelResult> results) throws Exception {
    return csv(results, -1, null, null);
  }

  /** As {@link #csv(List)}, with the cell of {@code column} in row {@code row} (0: the first result) replaced. */
  private static String csv(List<KernelResult> results, int row, String column, String cell) throws Exception {
    List<String> columns = new ArrayList<>(ResultCsv.CARRIED);
    columns.addAll(ResultCsv.SUMMARY);
    columns.addAll(ResultCsv.METHOD);
    List<List<String>> rows = new ArrayList<>();
    rows.add(columns);
    for (int i = 0; i < results.size(); i++) {
      KernelResult r = results.get(i);
      boolean replaced = i == row;
      rows.add(columns.stream().map(c -> {
        if (replaced && c.equals(column)) {
          return cell;
        }
        Object value = ResultCsv.value(c, r);
        return value == null ? "" : value.toString();
      }).toList());
    }
    return new CsvMapper().writeValueAsString(rows).replace("\n", "\r\n");
  }

  private HttpResponse<String> push(String file, String body, String authorization) {
    return http.write("POST", "/api/pushes?host=lab-gpu&file=" + URLEncoder.encode(file, StandardCharsets.UTF_8),
        body, authorization);
  }

  private HttpResponse<String> push(String file, String body) {
    return push(file, body, "Bearer " + Http.TOKEN);
  }

  private int stored() {
    return Http.json(http.get("/api/results?limit=100000")).size();
  }

  private void assertNothingStored() {
    assertThat(stored()).as("results stored").isZero();
    assertThat(Http.json(http.get("/api/pushes"))).as("pushes recorded").isEmpty();
    assertThat(Http.json(http.get("/api/sweeps"))).as("sweeps made").isEmpty();
    assertThat(Http.json(http.get("/api/runs"))).as("runs made").isEmpty();
  }

  private static JsonNode refused(HttpResponse<String> response, int status) {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
    assertThat(response.headers().firstValue("content-type")).hasValue(Problem.CONTENT_TYPE);
    return Http.json(response);
  }

  @Test
  void push_jsonTwice_storedOnceSaysSoAndFiledUnderOneDoneRun() throws Exception {
    List<KernelResult> results = standalone(LAB, 4);
    String file = json(results);

    HttpResponse<String> first = push("stride.json", file);
    HttpResponse<String> second = push("stride.json", file);

    assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
    JsonNode one = Http.json(first);
    assertThat(one.get("results").asInt()).isEqualTo(4);
    assertThat(one.get("stored").asInt()).isEqualTo(4);
    assertThat(one.get("alreadyPresent").asInt()).isZero();
    assertThat(one.get("format").asText()).isEqualTo("json");
    assertThat(first.headers().firstValue("location")).hasValue("/api/pushes/" + one.get("pushId").asText());
    assertThat(second.statusCode()).as(second.body()).isEqualTo(200);
    JsonNode two = Http.json(second);
    assertThat(two.get("stored").asInt()).isZero();
    assertThat(two.get("alreadyPresent").asInt()).isEqualTo(4);
    assertThat(two.get("runIds")).isEqualTo(one.get("runIds")).hasSize(1);
    assertThat(two.get("sweepIds")).isEqualTo(one.get("sweepIds")).hasSize(1);
    assertThat(stored()).isEqualTo(4);

    String runId = one.get("runIds").get(0).asText();
    JsonNode run = Http.json(http.get("/api/runs/" + runId));
    assertThat(run.get("state").asText()).isEqualTo("DONE");
    assertThat(run.get("deviceId").asText()).isEqualTo(LAB.id());
    assertThat(run.get("completed").asInt()).isEqualTo(4);
    assertThat(run.get("message").asText()).isEqualTo("pushed from lab-gpu (stride.json) with token tests");
    JsonNode sweeps = Http.json(http.get("/api/sweeps"));
    assertThat(sweeps).hasSize(1);
    assertThat(sweeps.get(0).get("state").asText()).isEqualTo("DONE");
    JsonNode pushes = Http.json(http.get("/api/pushes"));
    assertThat(pushes).hasSize(2);
    assertThat(pushes.get(0).get("stored").asInt() + pushes.get(1).get("stored").asInt()).isEqualTo(4);
    JsonNode detail = Http.json(http.get("/api/pushes/" + one.get("pushId").asText(), null, "Bearer " + Http.TOKEN));
    assertThat(detail.get("storedResults")).hasSize(4);
    assertThat(detail.get("push").get("token").asText()).isEqualTo("tests");
    System.out.printf("push: same JSON file twice: %d stored, %d already present; then %d stored, %d already present;"
        + " results stored %d, one run DONE (%s)%n", one.get("stored").asInt(), one.get("alreadyPresent").asInt(),
        two.get("stored").asInt(), two.get("alreadyPresent").asInt(), stored(), run.get("message").asText());
  }

  @Test
  void push_storedResults_publishedLiveOnceInFileOrder() throws Exception {
    List<KernelResult> results = new ArrayList<>(standalone(LAB, 5));
    java.util.Collections.reverse(results); // file order, not measuring order

    push("reversed.json", json(results));
    push("reversed.json", json(results));

    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (live.size() < results.size() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    Thread.sleep(300); // a second, wrong, publication of the re-push would arrive by now
    assertThat(live.stream().map(KernelResult::id).toList())
        .containsExactlyElementsOf(results.stream().map(KernelResult::id).toList());
    assertThat(live).allSatisfy(r -> {
      assertThat(r.origin()).isNotNull();
      assertThat(r.origin().kind()).isEqualTo(Origin.PUSHED);
      assertThat(r.runId()).isNotNull();
    });
  }

  @Test
  void push_csvThenSameResultsAsJson_allAlreadyPresent() throws Exception {
    List<KernelResult> results = standalone(LAB, 3);

    HttpResponse<String> csv = push("stride.csv", csv(results));
    HttpResponse<String> json = push("stride.json", json(results));

    assertThat(csv.statusCode()).as(csv.body()).isEqualTo(201);
    assertThat(Http.json(csv).get("format").asText()).isEqualTo("csv");
    assertThat(Http.json(csv).get("stored").asInt()).isEqualTo(3);
    assertThat(json.statusCode()).as(json.body()).isEqualTo(200);
    assertThat(Http.json(json).get("alreadyPresent").asInt()).isEqualTo(3);
    KernelResult back = JsonCodec.fromJson(http.get("/api/results?limit=1").body().getBytes(), KernelResult[].class)[0];
    KernelResult original = results.stream().filter(r -> r.id().equals(back.id())).findFirst().orElseThrow();
    assertThat(back.device()).isEqualTo(original.device());
    assertThat(back.device().fingerprint()).isEqualTo(LAB.fingerprint());
    assertThat(back.samples()).isEqualTo(original.samples());
    assertThat(back.method()).isEqualTo(original.method());
    assertThat(back.fatbinHash()).isEqualTo(original.fatbinHash());
    assertThat(back.agentVersion()).isEqualTo(original.agentVersion());
  }

  @Test
  void push_results_shownInViewsMarkedPushedWithOrigin() throws Exception {
    List<KernelResult> results = standalone(LAB, 3);
    JsonNode outcome = Http.json(push("nightly/stride.json", json(results)));
    String runId = outcome.get("runIds").get(0).asText();
    String sweepId = outcome.get("sweepIds").get(0).asText();
    KernelResult stride2 = results.get(2);
    String params = URLEncoder.encode(ResultCsv.params(stride2.params()), StandardCharsets.UTF_8);

    // Run detail: the run, and its results by sweep and device, each with its origin.
    assertThat(Http.json(http.get("/api/runs/" + runId)).get("sweepId").asText()).isEqualTo(sweepId);
    JsonNode runResults = Http.json(http.get("/api/results?sweepId=" + sweepId + "&device=" + LAB.id()));
    assertThat(runResults).hasSize(3);
    for (JsonNode r : runResults) {
      assertThat(r.get("runId").asText()).isEqualTo(runId);
      JsonNode origin = r.get("origin");
      assertThat(origin.get("kind").asText()).isEqualTo("pushed");
      assertThat(origin.get("host").asText()).isEqualTo("lab-gpu");
      assertThat(origin.get("file").asText()).isEqualTo("nightly/stride.json");
      assertThat(origin.get("token").asText()).isEqualTo("tests");
      assertThat(origin.get("pushId").asText()).isEqualTo(outcome.get("pushId").asText());
      assertThat(origin.has("address")).as("the address stays with the push, for admins").isFalse();
    }
    // Compare: the device is offered, and its latest results carry their origin.
    JsonNode devices = Http.json(http.get("/api/pushes/devices"));
    assertThat(devices).hasSize(1);
    assertThat(devices.get(0).get("id").asText()).isEqualTo(LAB.id());
    assertThat(devices.get(0).get("model").asText()).isEqualTo(LAB.name());
    assertThat(devices.get(0).get("origin").asText()).isEqualTo("pushed");
    assertThat(devices.get(0).get("online").asBoolean()).isFalse();
    assertThat(devices.get(0).get("info").get("uuid").asText()).isEqualTo(LAB.uuid());
    assertThat(Http.json(http.get("/api/devices"))).as("never a schedule's target").isEmpty();
    JsonNode latest = Http.json(http.get("/api/results/latest?model=" + URLEncoder.encode(LAB.name(),
        StandardCharsets.UTF_8)));
    assertThat(latest).hasSize(3); // one per kernel and params
    assertThat(latest.get(0).get("origin").get("kind").asText()).isEqualTo("pushed");
    // History: the kernel is listed and its point is marked pushed.
    assertThat(Http.json(http.get("/api/kernels")).toString()).contains(stride2.kernel());
    JsonNode history = Http.json(http.get("/api/history?kernel=" + stride2.kernel() + "&params=" + params));
    assertThat(history).hasSize(1);
    assertThat(history.get(0).get("resultId").asText()).isEqualTo(stride2.id().toString());
    assertThat(history.get(0).get("pushed").asBoolean()).isTrue();
    // Compare across models: the pushed result is the model's latest.
    JsonNode comparison = Http.json(http.get("/api/comparisons?kernel=" + stride2.kernel() + "&params=" + params));
    assertThat(comparison.get("models").get(0).get("resultId").asText()).isEqualTo(stride2.id().toString());
  }

  @Test
  void push_slowResultAfterFleetHistory_regressionNamesTheOriginChange() throws Exception {
    for (int i = 0; i < 8; i++) {
      KernelResult r = Fixtures.result("s", "r" + i, "a1", LAB, 4, true, T.minusSeconds(3600L * (10 - i)));
      Ack ack = local.request(Addresses.RESULTS, r);
      assertThat(ack.ok()).as(ack.reason()).isTrue();
    }
    KernelResult base = Fixtures.result(null, null, "a1", LAB, 4, true, T);
    KernelResult slow = Fixtures.slower(base, 1.25);

    assertThat(push("slow.json", json(List.of(slow))).statusCode()).isEqualTo(201);

    JsonNode changes = Http.json(http.get("/api/regressions?device=" + LAB.id()));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (changes.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(50);
      changes = Http.json(http.get("/api/regressions?device=" + LAB.id()));
    }
    assertThat(changes).hasSize(1);
    assertThat(changes.get(0).get("kind").asText()).isEqualTo("REGRESSION");
    assertThat(changes.get(0).get("resultId").asText()).isEqualTo(slow.id().toString());
    JsonNode origin = changes.get(0).get("environmentDiff").get("origin");
    assertThat(origin.get("before").asText()).isEqualTo("fleet");
    assertThat(origin.get("after").asText()).isEqualTo("pushed from lab-gpu (slow.json) with token tests");
  }

  @Test
  void push_badRowJson_refusedNamingLineAndFieldNothingStored() throws Exception {
    List<KernelResult> results = standalone(LAB, 3);
    String file = json(results);
    // The third result's device name blanked: the line of that "name" field is what the refusal must name.
    int third = file.indexOf(results.get(2).id().toString());
    int name = file.indexOf("\"name\" : \"" + LAB.name() + "\"", third);
    String bad = file.substring(0, name) + "\"name\" : \" \"" + file.substring(name + LAB.name().length() + 11);
    int line = (int) bad.substring(0, name).chars().filter(c -> c == '\n').count() + 1;

    JsonNode problem = refused(push("bad.json", bad), 400);

    assertThat(problem.get("line").asInt()).isEqualTo(line);
    assertThat(problem.get("field").asText()).isEqualTo("device.name");
    assertThat(problem.get("resultId").asText()).isEqualTo(results.get(2).id().toString());
    assertThat(problem.get("detail").asText()).isEqualTo("line " + line + ", field device.name: must not be blank");
    assertThat(problem.get("file").asText()).isEqualTo("bad.json");
    assertNothingStored();
    System.out.println("push: bad row refused: " + problem.get("detail").asText());
  }

  @Test
  void push_badRowCsv_refusedNamingLineAndColumnNothingStored() throws Exception {
    List<KernelResult> results = standalone(LAB, 3);
    String file = csv(results, 1, "medianSeconds", "fast");

    JsonNode problem = refused(push("bad.csv", file), 400);

    assertThat(problem.get("line").asInt()).isEqualTo(3);
    assertThat(problem.get("field").asText()).isEqualTo("medianSeconds");
    assertThat(problem.get("detail").asText()).isEqualTo("line 3, field medianSeconds: not a number: 'fast'");
    assertNothingStored();
  }

  @Test
  void push_rowFailingTheEventBusChecks_refusedNamingItsColumn() throws Exception {
    List<KernelResult> results = standalone(LAB, 2);
    String file = csv(results, 0, "launchesPerSample", "-3");

    JsonNode problem = refused(push("negative.csv", file), 400);

    assertThat(problem.get("detail").asText()).isEqualTo("line 2, field launchesPerSample: must not be negative");
    assertNothingStored();
  }

  @Test
  void push_truncatedFiles_refusedSayingSoNothingStored() throws Exception {
    List<KernelResult> results = standalone(LAB, 3);
    String json = json(results);
    String csv = csv(results);

    JsonNode cutJson = refused(push("cut.json", json.substring(0, json.length() - 100)), 400);
    JsonNode cutCsvRow = refused(push("cut.csv", csv.substring(0, csv.length() - 40)), 400);
    String cutInQuotes = csv.substring(0, csv.lastIndexOf("\"10 launches") + 5) + "\r\n";
    JsonNode cutCsvQuote = refused(push("cut2.csv", cutInQuotes), 400);

    assertThat(cutJson.get("detail").asText()).startsWith("the file ends in the middle of result 3 (truncated?)");
    assertThat(cutCsvRow.get("detail").asText()).contains("truncated");
    assertThat(cutCsvQuote.get("detail").asText()).contains("truncated");
    assertNothingStored();
    System.out.println("push: truncated: " + cutJson.get("detail").asText() + " | " + cutCsvRow.get("detail").asText()
        + " | " + cutCsvQuote.get("detail").asText());
  }

  @Test
  void push_otherFormats_refusedNamingWhatTheyAre() {
    String table = "Device: NVIDIA H100 80GB HBM3 (gpu1/cuda:0)\nkernel  params  valid\n";
    JsonNode text = refused(push("results.txt", table), 400);
    JsonNode object = refused(push("one.json", "{\"id\":\"x\"}"), 400);
    JsonNode empty = refused(push("empty.json", "[]"), 400);
    JsonNode oldCsv = refused(push("old.csv", String.join(",", ResultCsv.SUMMARY) + "\r\n"), 400);

    assertThat(text.get("detail").asText()).isEqualTo("not a results file: expected the JSON array or the CSV that"
        + " ./busload run writes with --format json or --format csv, or BabelStream's --csv output; this one starts"
        + " with 'Device: NVIDIA H100 80GB HBM3 (gpu1/cuda:0)'");
    assertThat(text.get("file").asText()).isEqualTo("results.txt");
    assertThat(object.get("detail").asText()).contains("array of results").contains("single object");
    assertThat(empty.get("detail").asText()).isEqualTo("the file holds no results");
    assertThat(oldCsv.get("detail").asText()).startsWith("the CSV has no column launchesPerSample, method,"
        + " schemaVersion");
    assertNothingStored();
  }

  @Test
  void push_idStoredWithOtherContents_409NamingTheResultAndNothingOfTheFileStored() throws Exception {
    List<KernelResult> results = standalone(LAB, 2);
    assertThat(push("first.json", json(results)).statusCode()).isEqualTo(201);
    KernelResult original = results.get(1);
    KernelResult changed = KernelResult.builder().schemaVersion(original.schemaVersion()).id(original.id())
        .agentId(original.agentId()).agentVersion(original.agentVersion()).fatbinHash(original.fatbinHash())
        .device(original.device()).suite(original.suite()).kernel(original.kernel()).params(original.params())
        .valid(true).mismatches(List.of()).medianSeconds(original.medianSeconds() * 2)
        .minSeconds(original.minSeconds()).maxSeconds(original.maxSeconds())
        .relativeSpread(original.relativeSpread()).samples(original.samples())
        .launchesPerSample(original.launchesPerSample()).warmupLaunches(original.warmupLaunches())
        .bytesRead(original.bytesRead()).bytesWritten(original.bytesWritten()).bytes(original.bytes())
        .bandwidth(original.bytes() / (original.medianSeconds() * 2)).method(original.method())
        .measuredAt(original.measuredAt()).build();
    KernelResult fresh = Fixtures.result(null, null, "lab-gpu", LAB, 9, true, T.plusSeconds(60));
    String second = json(List.of(fresh, changed));
    int line = (int) second.substring(0, second.indexOf(changed.id().toString())).chars()
        .filter(c -> c == '\n').count() - 1; // the id is on the object's third line, after schemaVersion

    JsonNode problem = refused(push("second.json", second), 409);

    assertThat(problem.get("resultId").asText()).isEqualTo(changed.id().toString());
    assertThat(problem.get("detail").asText()).isEqualTo("line " + line + ": result " + changed.id()
        + " is stored already with other contents (bandwidth, medianSeconds differ)");
    assertThat(stored()).as("the first file only; nothing of the second").isEqualTo(2);
    assertThat(Http.json(http.get("/api/pushes"))).as("the refused push is not recorded").hasSize(1);
  }

  @Test
  void push_sameIdTwiceInOneFile_storedOnceOrRefusedWhenTheyDiffer() throws Exception {
    List<KernelResult> results = standalone(LAB, 2);
    KernelResult twin = results.get(0);
    KernelResult other = Fixtures.result(null, null, "lab-gpu", LAB, 7, true, T);
    KernelResult clash = KernelResult.builder().schemaVersion(twin.schemaVersion()).id(twin.id())
        .agentId(twin.agentId()).agentVersion(twin.agentVersion()).fatbinHash(twin.fatbinHash())
        .device(twin.device()).suite(twin.suite()).kernel(other.kernel()).params(other.params()).valid(true)
        .mismatches(List.of()).medianSeconds(twin.medianSeconds()).minSeconds(twin.minSeconds())
        .maxSeconds(twin.maxSeconds()).relativeSpread(twin.relativeSpread()).samples(twin.samples())
        .launchesPerSample(twin.launchesPerSample()).warmupLaunches(twin.warmupLaunches())
        .bytesRead(twin.bytesRead()).bytesWritten(twin.bytesWritten()).bytes(twin.bytes())
        .bandwidth(twin.bandwidth()).method(twin.method()).measuredAt(twin.measuredAt()).build();

    JsonNode clashed = refused(push("clash.json", json(List.of(twin, results.get(1), clash))), 409);
    HttpResponse<String> doubled = push("doubled.json", json(List.of(twin, results.get(1), twin)));

    assertThat(clashed.get("detail").asText()).contains("is also on line 1 with other contents (params differs)");
    assertThat(doubled.statusCode()).isEqualTo(201);
    assertThat(Http.json(doubled).get("stored").asInt()).isEqualTo(2);
    assertThat(Http.json(doubled).get("alreadyPresent").asInt()).isEqualTo(1);
    assertThat(stored()).isEqualTo(2);
  }

  @Test
  void push_idStoredUnderAnotherMeasuredAt_409NamingTheResultAndStoredOnce() throws Exception {
    KernelResult original = standalone(LAB, 1).getFirst();
    assertThat(push("first.json", json(List.of(original))).statusCode()).isEqualTo(201);
    // Another month: the results table's partition key, so only the id's own table can see it is the same id.
    KernelResult moved = Fixtures.withMeasuredAt(original, T.minus(java.time.Duration.ofDays(40)));

    JsonNode problem = refused(push("moved.json", json(List.of(moved))), 409);

    assertThat(problem.get("resultId").asText()).isEqualTo(original.id().toString());
    assertThat(problem.get("detail").asText()).endsWith("result " + original.id()
        + " is stored already with other contents (measuredAt differs)");
    assertThat(stored()).isEqualTo(1);
    assertThat(Http.json(http.get("/api/results")).get(0).get("measuredAt").asText())
        .isEqualTo(original.measuredAt().toString());
  }

  @Test
  void push_measuredAtAYearAhead_refusedNamingTheSkewNothingStored() throws Exception {
    KernelResult ahead = Fixtures.withMeasuredAt(standalone(LAB, 1).getFirst(),
        Instant.now().plus(java.time.Duration.ofDays(366)));

    JsonNode problem = refused(push("ahead.json", json(List.of(ahead))), 400);

    assertThat(problem.get("detail").asText()).contains("measuredAt", "is 365 d ahead of the coordinator's clock;"
        + " the limit is 24 h");
    assertNothingStored();
  }

  @Test
  void eventBus_sameIdAnotherMeasuredAt_refusedNamingTheIdWhileTheSameRecordIsAckedAgain() throws Exception {
    KernelResult original = standalone(LAB, 1).getFirst();
    KernelResult moved = Fixtures.withMeasuredAt(original, T.minus(java.time.Duration.ofDays(40)));

    Ack first = local.request(Addresses.RESULTS, original);
    Ack again = local.request(Addresses.RESULTS, original);
    Ack other = local.request(Addresses.RESULTS, moved);

    assertThat(first.ok()).isTrue();
    assertThat(again.ok()).as("the same record resent (its ack was lost) is acked as stored").isTrue();
    assertThat(other.ok()).isFalse();
    assertThat(other.id()).isEqualTo(original.id().toString());
    assertThat(other.reason()).isEqualTo("id: result " + original.id()
        + " is stored already with other contents (measuredAt differs)");
    assertThat(stored()).isEqualTo(1);
  }

  @Test
  void eventBus_measuredAtAYearAhead_refusedNamingTheSkew() throws Exception {
    KernelResult ahead = Fixtures.withMeasuredAt(standalone(LAB, 1).getFirst(),
        Instant.now().plus(java.time.Duration.ofDays(366)));

    Ack ack = local.request(Addresses.RESULTS, ahead);

    assertThat(ack.ok()).isFalse();
    assertThat(ack.reason()).startsWith("measuredAt: " + ahead.measuredAt() + " is 365 d ahead of the coordinator's"
        + " clock; the limit is 24 h");
    assertThat(stored()).isZero();
  }

  @Test
  void push_wrongOrNoToken_401AndNothingStored() throws Exception {
    String file = json(standalone(LAB, 2));

    refused(push("x.json", file, "Bearer not-the-token"), 401);
    refused(push("x.json", file, null), 401);

    assertNothingStored();
  }

  @Test
  void push_fileCarryingAnotherCoordinatorsOrigin_takesThisPushsOrigin() throws Exception {
    Origin elsewhere = new Origin(Origin.PUSHED, "p-1", "ci", "other-host", "x.json", "10.0.0.9", T);
    KernelResult result = standalone(LAB, 1).getFirst().withOrigin(elsewhere);

    assertThat(push("exported.json", json(List.of(result))).statusCode()).isEqualTo(201);

    JsonNode origin = Http.json(http.get("/api/results")).get(0).get("origin");
    assertThat(origin.get("host").asText()).isEqualTo("lab-gpu");
    assertThat(origin.get("file").asText()).isEqualTo("exported.json");
  }

  @Test
  void eventBus_resultClaimingAnOrigin_refused() throws Exception {
    KernelResult claimed = standalone(LAB, 1).getFirst()
        .withOrigin(new Origin(Origin.PUSHED, "p", "t", "h", "f", "a", T));

    Ack ack = local.request(Addresses.RESULTS, claimed);

    assertThat(ack.ok()).isFalse();
    assertThat(ack.reason()).startsWith("origin:");
    assertThat(stored()).isZero();
  }

  @Test
  void push_fleetExportOfAnotherCoordinator_keepsItsRunsAndCreatesThem() throws Exception {
    KernelResult a = Fixtures.result("sweep-far", "run-far", "far-agent", LAB, 1, true, T);
    KernelResult b = Fixtures.result("sweep-far", "run-far", "far-agent", LAB, 2, true, T.plusSeconds(1));

    JsonNode outcome = Http.json(push("export.json", json(List.of(a, b))));

    assertThat(outcome.get("runIds").get(0).asText()).isEqualTo("run-far");
    assertThat(outcome.get("sweepIds").get(0).asText()).isEqualTo("sweep-far");
    JsonNode run = Http.json(http.get("/api/runs/run-far"));
    assertThat(run.get("agentId").asText()).isEqualTo("far-agent");
    assertThat(run.get("total").asInt()).isEqualTo(2);
    assertThat(Http.json(http.get("/api/results?sweepId=sweep-far"))).hasSize(2);
  }
}
