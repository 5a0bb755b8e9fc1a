package io.busload.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.busload.protocol.JsonCodec;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The real CPU measurement of {@code ./busload run} (JSON and CSV)
 * pushed with {@code ./busload push} from the built bundle to a coordinator started from the same bundle (embedded
 * PostgreSQL, REST over loopback), then every bad input: the coordinator down, a wrong token, a truncated file, a
 * file in another format, a result whose id is stored with other contents, a bad row; after each, nothing more is
 * stored.
 */
class PushIT {
  static final Path WORK = Path.of("target", "e2e");
  static final Path LAUNCHER = Path.of("..", "busload").toAbsolutePath().normalize();
  static LocalFleet fleet;
  static Path files;
  static Path json;
  static Path csv;
  /** A third run, for the bad inputs, so that the tests do not depend on each other's order. */
  static Path other;

  @BeforeAll
  static void startAndMeasure() throws Exception {
    Files.createDirectories(WORK);
    Path work = Files.createTempDirectory(WORK, "push-");
    fleet = new LocalFleet(work);
    fleet.startCoordinator();
    files = Files.createDirectories(work.resolve("files"));
    // Two real runs on this machine's CPU, as a lab's host outside the fleet would make them.
    json = files.resolve("stride.json");
    csv = files.resolve("stride.csv");
    Run measured = busload("run", "--suite", "stride", "--device", "cpu", "--format", "json", "--option",
        "elements=65536");
    assertThat(measured.exit()).as(measured.err()).isZero();
    Files.writeString(json, measured.out());
    Run measuredCsv = busload("run", "--suite", "stride", "--device", "cpu", "--format", "csv", "--option",
        "elements=65536");
    assertThat(measuredCsv.exit()).as(measuredCsv.err()).isZero();
    Files.writeString(csv, measuredCsv.out());
    other = files.resolve("other.json");
    Run measuredOther = busload("run", "--suite", "stride", "--device", "cpu", "--format", "json", "--option",
        "elements=4096");
    assertThat(measuredOther.exit()).as(measuredOther.err()).isZero();
    Files.writeString(other, measuredOther.out());
    FleetFaults.await(fleet, List.of("coordinator"), "coordinator answering", 150,
        () -> fleet.get(fleet.coordinatorUrl() + "/api/agents", "*/*").statusCode() == 200 ? true : null);
  }

  @AfterAll
  static void stop() throws Exception {
    if (fleet != null) {
      fleet.close();
    }
  }

  record Run(int exit, String out, String err) {}

  /** {@code ./busload ARGS} with the built bundle, as a lab runs it (BUSLOAD_BUNDLE: no build). */
  static Run busload(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(LAUNCHER.toString()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().put("BUSLOAD_BUNDLE", fleet.bundle.toAbsolutePath().toString());
    builder.environment().put("BUSLOAD_JAVA", ProcessHandle.current().info().command().orElse("java"));
    builder.environment().remove("BUSLOAD_API_TOKEN_FILE");
    Path out = Files.createTempFile(files == null ? WORK : files, "out-", ".txt");
    Path err = Files.createTempFile(files == null ? WORK : files, "err-", ".txt");
    Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    if (!process.waitFor(5, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new AssertionError("./busload " + String.join(" ", args) + " did not finish in 5 minutes");
    }
    return new Run(process.exitValue(), Files.readString(out), Files.readString(err));
  }

  static Run push(Path file, String... options) throws IOException, InterruptedException {
    List<String> args = new ArrayList<>(List.of("push", "--coordinator", fleet.coordinatorUrl(), "--token-file",
        fleet.tokenFile.toString(), "--host", "lab-gpu-7"));
    args.addAll(List.of(options));
    args.add(file.toString());
    return busload(args.toArray(String[]::new));
  }

  static JsonNode get(String path) throws Exception {
    return JsonCodec.MAPPER.readTree(fleet.get(fleet.coordinatorUrl() + path, "application/json").body());
  }

  static int storedResults() throws Exception {
    return get("/api/results?limit=1000000").size();
  }

  @Test
  void push_realCpuRunTwice_storedOnceSaysSoAndShownInViewsMarkedPushed() throws Exception {
    JsonNode measured = JsonCodec.MAPPER.readTree(Files.readString(json));
    int n = measured.size();
    int before = storedResults();

    Run first = push(json);
    Run again = push(json);

    assertThat(first.exit()).as(first.err()).isZero();
    assertThat(first.out()).contains(json + ": " + n + " stored, 0 already present");
    assertThat(again.exit()).as(again.err()).isZero();
    assertThat(again.out()).contains(json + ": 0 stored, " + n + " already present");
    assertThat(storedResults()).isEqualTo(before + n);
    System.out.print("push IT: " + first.out() + "push IT: " + again.out());

    Matcher run = Pattern.compile("run ([0-9a-f-]{36})\\)").matcher(first.out());
    assertThat(run.find()).as(first.out()).isTrue();
    // Run detail: the run, DONE, saying where it came from, and its results with their origin.
    JsonNode runView = get("/api/runs/" + run.group(1));
    assertThat(runView.path("state").asText()).isEqualTo("DONE");
    assertThat(runView.path("total").asInt()).isEqualTo(n);
    assertThat(runView.path("message").asText()).isEqualTo("pushed from lab-gpu-7 (" + json + ") with token e2e");
    JsonNode results = get("/api/results?sweepId=" + runView.path("sweepId").asText());
    assertThat(results).hasSize(n);
    String device = measured.get(0).path("device").path("id").asText();
    for (JsonNode result : results) {
      assertThat(result.path("runId").asText()).isEqualTo(run.group(1));
      assertThat(result.path("device").path("kind").asText()).isEqualTo("cpu");
      assertThat(result.path("origin").path("kind").asText()).isEqualTo("pushed");
      assertThat(result.path("origin").path("token").asText()).isEqualTo("e2e");
      assertThat(result.path("origin").path("host").asText()).isEqualTo("lab-gpu-7");
      assertThat(result.path("origin").path("file").asText()).isEqualTo(json.toString());
    }
    // Compare: the device is offered and its latest results are the pushed ones.
    assertThat(get("/api/pushes/devices").findValuesAsText("id")).contains(device);
    JsonNode latest = get("/api/results/latest?device=" + URLEncoder.encode(device, StandardCharsets.UTF_8));
    // Every result of this coordinator was pushed (the other tests push other runs of the same device).
    assertThat(latest.size()).isGreaterThanOrEqualTo(n);
    for (JsonNode r : latest) {
      assertThat(r.path("origin").path("kind").asText()).isEqualTo("pushed");
    }
    // History: each kernel's point is marked pushed.
    JsonNode strided = measured.get(n - 1);
    String params = new java.util.TreeMap<String, Object>(JsonCodec.MAPPER.convertValue(strided.path("params"),
        Map.class)).entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
        .collect(java.util.stream.Collectors.joining(";"));
    JsonNode history = get("/api/history?kernel=" + strided.path("kernel").asText() + "&params="
        + URLEncoder.encode(params, StandardCharsets.UTF_8));
    assertThat(history.findValuesAsText("resultId")).contains(strided.path("id").asText());
    assertThat(history.get(0).path("pushed").asBoolean()).isTrue();
  }

  @Test
  void push_realCpuRunAsCsv_storedWithDeviceAndEnvironment() throws Exception {
    List<String> lines = Files.readAllLines(csv);
    int n = lines.size() - 1;

    Run pushed = push(csv);

    assertThat(pushed.exit()).as(pushed.err()).isZero();
    assertThat(pushed.out()).contains(csv + ": " + n + " stored, 0 already present");
    String id = lines.get(1).substring(0, 36);
    JsonNode stored = get("/api/results?limit=1000000");
    JsonNode result = null;
    for (JsonNode r : stored) {
      if (r.path("id").asText().equals(id)) {
        result = r;
      }
    }
    assertThat(result).as("result " + id).isNotNull();
    assertThat(result.path("device").path("name").asText()).startsWith("CPU");
    assertThat(result.path("device").path("multiprocessors").asInt()).isPositive();
    assertThat(result.path("fatbinHash").asText()).hasSize(64);
    assertThat(result.path("agentVersion").asText()).isNotBlank();
    assertThat(result.path("samples").size()).isGreaterThanOrEqualTo(3);
    assertThat(result.path("method").asText()).isNotBlank();
    assertThat(result.path("origin").path("file").asText()).isEqualTo(csv.toString());
  }

  @Test
  void push_badInputs_refusedNamingWhatAndNothingStored() throws Exception {
    String text = Files.readString(other);
    int before = storedResults();
    int pushesBefore = get("/api/pushes").size();

    // The coordinator down: nothing listens on the port.
    int closed;
    try (ServerSocket socket = new ServerSocket(0)) {
      closed = socket.getLocalPort();
    }
    Run down = busload("push", "--coordinator", "http://127.0.0.1:" + closed, "--token-file",
        fleet.tokenFile.toString(), other.toString());
    assertThat(down.exit()).isEqualTo(3);
    assertThat(down.err()).contains("cannot reach the coordinator at http://127.0.0.1:" + closed + "/");

    // A wrong token.
    Path wrong = Files.writeString(files.resolve("wrong-token"), "e2e-not-the-token\n");
    Run unauthorized = busload("push", "--coordinator", fleet.coordinatorUrl(), "--token-file", wrong.toString(),
        other.toString());
    assertThat(unauthorized.exit()).isEqualTo(4);
    assertThat(unauthorized.err()).contains("refused the API token (401)").doesNotContain("e2e-not-the-token");

    // Truncated: the JSON cut in the middle of its last result.
    Path truncated = Files.writeString(files.resolve("truncated.json"), text.substring(0, text.length() - 200));
    Run cut = push(truncated);
    assertThat(cut.exit()).isEqualTo(1);
    assertThat(cut.err()).contains(truncated + ": refused (400), nothing of it stored: the file ends in the middle"
        + " of result").contains("(truncated?)");

    // Another format: what --format table prints.
    Run table = busload("run", "--suite", "stride", "--device", "cpu", "--format", "table", "--option",
        "elements=4096");
    Path tableFile = Files.writeString(files.resolve("stride.txt"), table.out());
    Run otherFormat = push(tableFile);
    assertThat(otherFormat.exit()).isEqualTo(1);
    assertThat(otherFormat.err()).contains(tableFile + ": refused (400), nothing of it stored: not a results file");

    // A result whose id is stored with other contents, beside a new one: the whole file refused.
    ArrayNode results = (ArrayNode) JsonCodec.MAPPER.readTree(text);
    ObjectNode changed = (ObjectNode) results.get(1);
    changed.put("medianSeconds", changed.path("medianSeconds").asDouble() * 2);
    ObjectNode fresh = results.get(2).deepCopy();
    fresh.put("id", java.util.UUID.randomUUID().toString());
    results.add(fresh);
    Path conflicting = Files.writeString(files.resolve("conflicting.json"),
        JsonCodec.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(results));
    Run original = push(other);
    assertThat(original.exit()).as(original.err()).isZero();
    int stored = storedResults();
    assertThat(stored).as("the original file's results").isEqualTo(before + results.size() - 1);
    Run conflict = push(conflicting);
    assertThat(conflict.exit()).isEqualTo(1);
    assertThat(conflict.err()).contains(conflicting + ": refused (409), nothing of it stored: line ")
        .contains("result " + changed.path("id").asText() + " is stored already with other contents (medianSeconds"
            + " differs)");
    assertThat(storedResults()).as("the new result beside the conflicting one is not stored").isEqualTo(stored);

    // A bad row: one cell of the CSV's third row.
    List<String> lines = new ArrayList<>(Files.readAllLines(csv));
    List<String> header = List.of(lines.getFirst().split(","));
    int median = header.indexOf("medianSeconds");
    String[] cells = lines.get(3).split(",", -1);
    Double.parseDouble(cells[median]); // no quoted comma before the column: the naive split found the right cell
    cells[median] = "fast";
    lines.set(3, String.join(",", cells));
    Path badRow = Files.writeString(files.resolve("bad-row.csv"), String.join("\r\n", lines) + "\r\n");
    Run bad = push(badRow);
    assertThat(bad.exit()).isEqualTo(1);
    assertThat(bad.err()).contains(badRow + ": refused (400), nothing of it stored: line 4, field medianSeconds:"
        + " not a number: 'fast'");

    int pushed = get("/api/pushes").size();
    assertThat(storedResults()).as("only the original file's results").isEqualTo(stored);
    assertThat(pushed).as("one push taken: the original file; every refused one left no trace").isEqualTo(
        pushesBefore + 1);
    System.out.println("push IT bad inputs:\n  " + down.err().strip() + "\n  " + unauthorized.err().strip() + "\n  "
        + cut.err().strip() + "\n  " + otherFormat.err().strip() + "\n  " + conflict.err().strip() + "\n  "
        + bad.err().strip());
  }
}
