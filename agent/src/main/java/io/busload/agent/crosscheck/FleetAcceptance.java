package io.busload.agent.crosscheck;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.busload.agent.CoordinatorAccess;
import io.busload.agent.CoordinatorApi;
import io.busload.agent.report.Csv;
import io.busload.protocol.JsonCodec;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The acceptance of a running fleet against the standalone run on the same device: the device online over REST, a
 * sweep started over REST and one fired by a cron schedule, both awaited, every result exported as CSV and JSON, the
 * agent's outbox counted, and each sweep compared with {@link FleetComparison} per device. deploy/gpu/run-fleet.sh
 * starts the processes and calls this; the files it writes into {@code --out} are the ones docs/results/*fleet*
 * describe: {@code summary.txt} (one line a step, seconds since {@code --since}), {@code comparison-*.md}, the
 * exports ({@code sweep-{rest,cron}.{csv,json}}, {@code all-results.csv}) and the REST answers they came from.
 *
 * <p>Exit 0 only when both sweeps were compared and every comparison holds: medians within the tolerance, 0 lost,
 * 0 duplicated. 1 otherwise (the last line of {@code summary.txt} says why); 2 for wrong usage.
 */
@Command(name = "fleet-acceptance", mixinStandardHelpOptions = true,
    description = {"Accept a running fleet against the standalone run on the same device: a sweep over REST and one"
        + " from a cron schedule, exported, counted and compared case by case with the standalone CSV.",
        "Writes summary.txt, comparison-*.md and the exports into --out."},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:both sweeps compared, every case within the tolerance, none lost or duplicated",
        "1:the fleet did not come up, a sweep did not finish, or a comparison failed (summary.txt says which)",
        "2:wrong usage"})
public final class FleetAcceptance implements Callable<Integer> {
  static final String ALL = "all";
  private static final Duration POLL = Duration.ofSeconds(1);
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

  @Spec
  CommandSpec spec;

  @Option(names = "--coordinator", required = true, paramLabel = "URL",
      description = "The coordinator's REST API, e.g. http://127.0.0.1:8081")
  String coordinator;

  /** The token, with the sweep scope, is read once the device is online. */
  @Mixin
  CoordinatorAccess access;

  @Option(names = "--suite", defaultValue = "coalescing", description = "The suite of both sweeps, as the standalone"
      + " run measured it (default: ${DEFAULT-VALUE})")
  String suite;

  @Option(names = "--option", paramLabel = "NAME=VALUE", description = "A suite option of both sweeps, as the"
      + " standalone run was given it")
  Map<String, String> options = new LinkedHashMap<>();

  @Option(names = "--device", defaultValue = "cuda:0", description = "The device: the end of its id (cuda:0, cpu),"
      + " or all: every device online once --devices of them are (default: ${DEFAULT-VALUE})")
  String device;

  @Option(names = "--devices", defaultValue = "1", description = "With --device all: how many devices must be online"
      + " (default: ${DEFAULT-VALUE})")
  int expectedDevices;

  @Option(names = "--label", defaultValue = "lent-gpu", description = "With --device all: the agent's label the"
      + " schedule targets (default: ${DEFAULT-VALUE})")
  String label;

  @Option(names = "--standalone", required = true, paramLabel = "CSV",
      description = "The standalone run's results: run --format csv on the same device")
  Path standalone;

  @Option(names = "--outbox", paramLabel = "DIR", description = "The agent's outbox: files left in it are results"
      + " the coordinator never acked")
  Path outbox;

  @Option(names = "--out", required = true, paramLabel = "DIR", description = "Where summary.txt, the exports and"
      + " the comparisons go (summary.txt is appended to)")
  Path out;

  @Option(names = "--since", paramLabel = "EPOCH_SECONDS", description = "When the whole run started, for the"
      + " seconds summary.txt's lines begin with and for --deadline (default: now)")
  Long since;

  @Option(names = "--online-wait", defaultValue = "120", paramLabel = "SECONDS",
      description = "How long the device may take to come online (default: ${DEFAULT-VALUE})")
  int onlineWait;

  @Option(names = "--schedule-delay", defaultValue = "60", paramLabel = "SECONDS", description = "The schedule fires"
      + " once, at the first whole minute at least this long after it is made (default: ${DEFAULT-VALUE})")
  int scheduleDelay;

  @Option(names = "--deadline", defaultValue = "540", paramLabel = "SECONDS", description = "Stop waiting for the"
      + " sweeps this long after --since, and compare what there is (default: ${DEFAULT-VALUE})")
  int deadline;

  @Option(names = "--tolerance", paramLabel = "FRACTION", description = "How far a fleet median may be from the"
      + " standalone one, as a fraction of it (default: 0.01)")
  double tolerance = FleetComparison.TOLERANCE;

  @Option(names = "--watch", paramLabel = "NAME=PID", description = "A process of the fleet (coordinator=1234):"
      + " its exit while the fleet comes up stops the acceptance, and summary.txt says whether it is alive at the end")
  Map<String, Long> watched = new LinkedHashMap<>();

  @Option(names = "--log", paramLabel = "FILE", description = "A process's log: its first lines naming TLS and the"
      + " agent bridge are copied into summary.txt as evidence of the transport")
  List<Path> logs = new ArrayList<>();

  @Option(names = "--transport", defaultValue = "default", description = "How the agent reaches the coordinator"
      + " (default, bridge or cluster; with TLS or not), as summary.txt's fleet line names it (default:"
      + " ${DEFAULT-VALUE})")
  String transport;

  private final Clock clock;
  private HttpClient http;
  private URI base;
  private String token;
  private Summary summary;

  public FleetAcceptance() {
    this(Clock.systemUTC());
  }

  /** Reading the time, for the schedule's minute and the summary's seconds, from {@code clock}. */
  public FleetAcceptance(Clock clock) {
    this.clock = clock;
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new FleetAcceptance()).execute(args));
  }

  @Override
  public Integer call() throws IOException, InterruptedException {
    String standaloneCsv;
    try {
      if (expectedDevices < 1) {
        throw new IllegalArgumentException("--devices: at least 1, not " + expectedDevices);
      }
      if (!(tolerance >= 0)) {
        throw new IllegalArgumentException("--tolerance: a fraction of at least 0 (0.01 is 1%), not " + tolerance);
      }
      if (scheduleDelay < 0 || deadline < 1 || onlineWait < 1) {
        throw new IllegalArgumentException("--schedule-delay, --deadline, --online-wait: seconds, at least 0, 1 and 1");
      }
      if (!access.tokenNamed()) {
        throw new IllegalArgumentException("--token-file: missing, and BUSLOAD_API_TOKEN_FILE is not set");
      }
      base = CoordinatorApi.base(coordinator);
      http = access.client(base, Duration.ofSeconds(5));
      standaloneCsv = Files.readString(standalone);
    } catch (IOException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--standalone: " + standalone
          + " cannot be read (" + e.getClass().getSimpleName() + ")");
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    Files.createDirectories(out);
    Instant start = since == null ? clock.instant() : Instant.ofEpochSecond(since);
    summary = new Summary(out.resolve("summary.txt"), start, clock, spec.commandLine().getOut());
    try {
      return accept(start, standaloneCsv);
    } catch (IOException | UncheckedIOException e) {
      // The coordinator went away or answered an export with an error, or a file could not be written: what was
      // written so far stays, and the summary's last line says where it stopped.
      summary.say("stopped: " + e.getMessage());
      return 1;
    } finally {
      http.close();
    }
  }

  private int accept(Instant start, String standaloneCsv) throws IOException, InterruptedException {
    List<String> devices = awaitDevices();
    if (devices.isEmpty()) {
      return 1;
    }
    try {
      // Read once the fleet is up: the coordinator writes its first token file when it starts.
      token = access.token("--token-file: missing, and BUSLOAD_API_TOKEN_FILE is not set");
    } catch (IllegalArgumentException e) {
      summary.say("no API token: " + e.getMessage());
      return 1;
    }
    for (String line : evidence(logs)) {
      summary.raw(line);
    }
    String joined = String.join(",", devices);
    summary.say("fleet up (" + transport + "): device " + joined + " online");

    ObjectNode sweep = JsonCodec.MAPPER.createObjectNode().put("suite", suite);
    devices.forEach(sweep.putArray("devices")::add);
    putOptions(sweep);
    HttpResponse<String> created = post("api/sweeps", sweep);
    write("sweep-rest.json", created.body());
    if (created.statusCode() / 100 != 2) {
      summary.say("POST /api/sweeps refused (" + created.statusCode() + "): " + created.body().strip());
      return 1;
    }
    String restSweep = JsonCodec.MAPPER.readTree(created.body()).path("id").asText();

    ZonedDateTime fire = fireTime(clock.instant(), Duration.ofSeconds(scheduleDelay));
    String cron = cron(fire);
    ObjectNode schedule = JsonCodec.MAPPER.createObjectNode().put("name", "gpu-fleet-once").put("cron", cron)
        .put("timeZone", "UTC").put("suite", suite);
    schedule.putObject("target").put("kind", ALL.equals(device) ? "label" : "device")
        .put("value", ALL.equals(device) ? label : joined);
    putOptions(schedule);
    HttpResponse<String> scheduled = post("api/schedules", schedule);
    write("schedule.json", scheduled.body());
    if (scheduled.statusCode() / 100 != 2) {
      summary.say("POST /api/schedules refused (" + scheduled.statusCode() + "): " + scheduled.body().strip());
      return 1;
    }
    JsonNode madeSchedule = JsonCodec.MAPPER.readTree(scheduled.body());
    String scheduleId = madeSchedule.path("id").asText();
    summary.say("sweep " + restSweep + " started over REST; schedule '" + cron + "' UTC created ("
        + madeSchedule.path("nextFireAt").asText() + ")");

    Instant stopAt = start.plusSeconds(deadline);
    String cronSweep = null;
    String restState = "?";
    String cronState = "-";
    while (true) {
      JsonNode sweeps = getJson("api/sweeps?limit=10", "sweeps.json");
      if (cronSweep == null) {
        cronSweep = firedSweep(getJson("api/schedules/" + scheduleId, null));
      }
      if (sweeps != null) {
        restState = stateOf(sweeps, restSweep);
        cronState = cronSweep == null ? "-" : stateOf(sweeps, cronSweep);
      }
      if (finished(restState) && finished(cronState)) {
        break;
      }
      if (!clock.instant().isBefore(stopAt)) {
        summary.say("stopping the wait at " + deadline + " s: REST sweep " + restState + ", scheduled sweep "
            + cronState);
        break;
      }
      Thread.sleep(POLL);
    }
    summary.say("REST sweep " + restSweep + ": " + restState + "; scheduled sweep "
        + (cronSweep == null ? "none" : cronSweep) + ": " + cronState);
    getJson("api/schedules", "schedules.json");

    Map<String, String> exported = new LinkedHashMap<>();
    exported.put("rest", restSweep);
    if (cronSweep != null) {
      exported.put("cron", cronSweep);
    }
    for (Map.Entry<String, String> e : exported.entrySet()) {
      String which = e.getKey();
      String id = e.getValue();
      String csv = get("api/results?sweepId=" + id + "&format=csv&limit=100000", "text/csv");
      String json = get("api/results?sweepId=" + id + "&limit=100000", "application/json");
      write("sweep-" + which + ".csv", csv);
      write("sweep-" + which + ".json", json);
      write("sweep-" + which + "-state.json", get("api/sweeps/" + id, "application/json"));
      summary.say("sweep " + which + " " + id + " exported: " + exportCounts(csv, json));
    }
    String all = get("api/results?format=csv&limit=100000", "text/csv");
    write("all-results.csv", all);
    StringBuilder stored = new StringBuilder("results stored in all: " + csvRows(all));
    if (outbox != null) {
      stored.append("; agent outbox files left: ").append(outboxFiles(outbox));
    }
    watched.forEach((name, pid) -> stored.append(stored.indexOf(" alive: ") < 0 ? "; " : ", ").append(name)
        .append(" alive: ").append(alive(pid) ? "yes" : "no"));
    summary.say(stored.toString());

    int status = compare(standaloneCsv, exported.keySet());
    summary.say("done in " + summary.elapsed() + " s");
    return status;
  }

  /** Each sweep against the standalone run, device by device; 0 only when every comparison holds. */
  private int compare(String standaloneCsv, Set<String> exported) throws IOException {
    Map<String, String> alone;
    try {
      alone = splitByDevice(standaloneCsv);
    } catch (IllegalArgumentException e) {
      summary.say("the standalone CSV " + standalone + " cannot be compared: " + e.getMessage());
      return 1;
    }
    if (alone.isEmpty()) {
      summary.say("the standalone run has no results to compare with (" + standalone + ")");
      return 1;
    }
    alone.forEach((name, csv) -> write("standalone-" + name + ".csv", csv));
    int status = 0;
    for (String which : List.of("rest", "cron")) {
      Path export = out.resolve("sweep-" + which + ".csv");
      if (!exported.contains(which) || csvRows(Files.readString(export)) < 0) {
        summary.say("no " + which + " sweep to compare");
        status = 1;
        continue;
      }
      String fleetCsv = Files.readString(export);
      Map<String, String> fleet = splitByDevice(fleetCsv);
      fleet.forEach((name, csv) -> write("sweep-" + which + "-" + name + ".csv", csv));
      for (String name : alone.keySet()) {
        String suffix = ALL.equals(device) ? "-" + name : "";
        // A device the sweep holds nothing of: every standalone case of it is lost.
        String mine = fleet.getOrDefault(name, header(fleetCsv));
        FleetComparison.Report report = FleetComparison.compare(alone.get(name), mine, tolerance);
        StringWriter table = new StringWriter();
        FleetComparison.print(report, new PrintWriter(table));
        write("comparison-" + which + suffix + ".md", table.toString());
        int exit = report.ok() ? 0 : 1;
        if (exit != 0) {
          status = 1;
        }
        List<String> lines = table.toString().lines().toList();
        summary.say(which + " sweep vs standalone on " + name + " (exit " + exit + "): " + lines.getLast());
      }
    }
    return status;
  }

  /** The device ids to sweep, once online; empty (and said why) when they never came or a process exited. */
  private List<String> awaitDevices() throws InterruptedException {
    Instant giveUp = clock.instant().plusSeconds(onlineWait);
    String last = null;
    while (true) {
      try {
        last = get("api/devices", "application/json");
        List<String> ids = chooseDevices(JsonCodec.MAPPER.readTree(last), device, expectedDevices);
        if (!ids.isEmpty()) {
          write("devices.json", last);
          return ids;
        }
      } catch (IOException | UncheckedIOException e) {
        // Not up yet: the REST port opens once the store has migrated.
      }
      List<String> exited = watched.entrySet().stream().filter(e -> !alive(e.getValue())).map(Map.Entry::getKey)
          .toList();
      if (!exited.isEmpty()) {
        summary.say("a process exited at start: " + String.join(", ", exited));
        return List.of();
      }
      if (!clock.instant().isBefore(giveUp)) {
        summary.say("no device " + device + " online after " + onlineWait + " s");
        if (last != null) {
          write("devices.json", last);
        }
        return List.of();
      }
      Thread.sleep(POLL);
    }
  }

  /**
   * The ids of the devices online in a {@code GET /api/devices} answer: the one whose id ends in {@code /device},
   * or with {@code device} {@code all} every one (sorted) once at least {@code expected} are online. Empty while they
   * are not. A device without a state counts as online.
   */
  static List<String> chooseDevices(JsonNode devices, String device, int expected) {
    List<String> online = new ArrayList<>();
    for (JsonNode d : devices) {
      if (!"OFFLINE".equals(d.path("state").asText("ONLINE"))) {
        online.add(d.path("id").asText());
      }
    }
    if (ALL.equals(device)) {
      return online.size() >= expected ? online.stream().sorted().toList() : List.of();
    }
    return online.stream().filter(id -> id.endsWith("/" + device)).findFirst().map(List::of).orElse(List.of());
  }

  /** The state of sweep {@code id} in a {@code GET /api/sweeps} answer; {@code ?} where it is not listed. */
  static String stateOf(JsonNode sweeps, String id) {
    for (JsonNode s : sweeps) {
      if (id.equals(s.path("id").asText())) {
        return s.path("state").asText("?");
      }
    }
    return "?";
  }

  /** The sweep a schedule's first fire started, from {@code GET /api/schedules/{id}}; null before it fired. */
  static String firedSweep(JsonNode schedule) {
    if (schedule == null) {
      return null;
    }
    for (JsonNode fire : schedule.path("fires")) {
      String id = fire.path("sweepId").asText("");
      if (!id.isEmpty()) {
        return id;
      }
    }
    return null;
  }

  static boolean finished(String state) {
    return "DONE".equals(state) || "FAILED".equals(state);
  }

  /**
   * The first whole minute at least {@code delay} after {@code now}, in UTC: a cron of that minute and hour fires
   * once during the run, and {@code delay} leaves room for the schedule's creation to land before it.
   */
  static ZonedDateTime fireTime(Instant now, Duration delay) {
    ZonedDateTime earliest = now.plus(delay).atZone(ZoneOffset.UTC);
    ZonedDateTime minute = earliest.truncatedTo(ChronoUnit.MINUTES);
    return minute.isBefore(earliest) ? minute.plusMinutes(1) : minute;
  }

  /** The five-field cron of {@code fire}'s minute and hour, every day. */
  static String cron(ZonedDateTime fire) {
    return fire.getMinute() + " " + fire.getHour() + " * * *";
  }

  /**
   * The rows of a Busload results CSV grouped by the device they were measured on, each group with the header and
   * the rows' text as it was: keyed by the end of the device id without its colon ({@code cuda0}, {@code cpu}),
   * in the order of the device ids.
   */
  static Map<String, String> splitByDevice(String csv) {
    List<Csv.Row> rows = Csv.rows(csv);
    if (rows.isEmpty()) {
      return Map.of();
    }
    int column = Csv.column(rows.getFirst().fields(), "deviceId", "results CSV");
    List<String> lines = csv.lines().toList();
    String newline = csv.contains("\r\n") ? "\r\n" : "\n";
    Map<String, StringBuilder> byDevice = new TreeMap<>();
    for (int i = 1; i < rows.size(); i++) {
      int from = rows.get(i).line() - 1;
      int to = i + 1 < rows.size() ? rows.get(i + 1).line() - 1 : lines.size();
      StringBuilder text = byDevice.computeIfAbsent(rows.get(i).fields().get(column), d -> new StringBuilder());
      for (String line : lines.subList(from, to)) {
        if (!line.isBlank()) {
          text.append(line).append(newline);
        }
      }
    }
    String header = header(csv);
    Map<String, String> named = new LinkedHashMap<>();
    byDevice.forEach((id, text) -> named.merge(deviceName(id), header + text,
        (before, more) -> before + more.substring(header.length())));
    return named;
  }

  /** The header record of a results CSV with its line ending; empty for an empty text. */
  static String header(String csv) {
    List<Csv.Row> rows = Csv.rows(csv);
    if (rows.isEmpty()) {
      return "";
    }
    List<String> lines = csv.lines().toList();
    int to = rows.size() > 1 ? rows.get(1).line() - 1 : lines.size();
    String newline = csv.contains("\r\n") ? "\r\n" : "\n";
    StringBuilder text = new StringBuilder();
    lines.subList(0, to).stream().filter(l -> !l.isBlank()).forEach(l -> text.append(l).append(newline));
    return text.toString();
  }

  /** {@code host/cuda:0} as {@code cuda0}: a device's name in the files' names. */
  static String deviceName(String deviceId) {
    return deviceId.substring(deviceId.lastIndexOf('/') + 1).replace(":", "");
  }

  /** The records after a CSV's header; -1 for a text with no header. */
  static int csvRows(String csv) {
    return Csv.rows(csv).size() - 1;
  }

  /** What a sweep's exports hold: CSV rows, JSON results, distinct result ids and valid results. */
  static String exportCounts(String csv, String json) {
    JsonNode results;
    try {
      results = JsonCodec.MAPPER.readTree(json);
    } catch (IOException e) {
      results = JsonCodec.MAPPER.createArrayNode();
    }
    Set<String> ids = new HashSet<>();
    int valid = 0;
    for (JsonNode r : results) {
      ids.add(r.path("id").asText());
      if (r.path("valid").asBoolean(false)) {
        valid++;
      }
    }
    return Math.max(csvRows(csv), 0) + " CSV rows, " + results.size() + " JSON results, " + ids.size()
        + " distinct ids, " + valid + " valid";
  }

  /** The lines of {@code logs} that show the transport: the first four naming TLS, the first two the agent bridge. */
  static List<String> evidence(List<Path> logs) {
    List<String> all = new ArrayList<>();
    for (Path log : logs) {
      try (Stream<String> lines = Files.lines(log, StandardCharsets.UTF_8)) {
        all.addAll(lines.toList());
      } catch (IOException | UncheckedIOException e) {
        // A log that cannot be read shows nothing; the processes' state decides, not their logs.
      }
    }
    List<String> shown = new ArrayList<>(all.stream().filter(l -> l.toLowerCase(java.util.Locale.ROOT)
        .contains("tls")).limit(4).toList());
    shown.addAll(all.stream().filter(l -> l.contains("agent bridge")).limit(2).toList());
    return shown;
  }

  static long outboxFiles(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).count();
    }
  }

  private static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  private void putOptions(ObjectNode body) {
    if (!options.isEmpty()) {
      ObjectNode node = body.putObject("options");
      options.forEach(node::put);
    }
  }

  private HttpResponse<String> post(String path, JsonNode body) throws IOException, InterruptedException {
    return http.send(request(path).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(JsonCodec.MAPPER.writeValueAsString(body))).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The body of a GET that answered 2xx; an IOException naming the path otherwise. */
  private String get(String path, String accept) throws IOException, InterruptedException {
    HttpResponse<String> response = http.send(request(path).header("Accept", accept).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() / 100 != 2) {
      throw new IOException("GET /" + path + ": " + response.statusCode() + " " + response.body().strip());
    }
    return response.body();
  }

  /** The JSON of a GET, written to {@code file} where one is named; null where it failed (the next poll retries). */
  private JsonNode getJson(String path, String file) throws InterruptedException {
    try {
      String body = get(path, "application/json");
      if (file != null) {
        write(file, body);
      }
      return JsonCodec.MAPPER.readTree(body);
    } catch (IOException e) {
      return null;
    }
  }

  /** A request to the API; with the token once it is read (reads need none, writes do). */
  private HttpRequest.Builder request(String path) {
    HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path)).timeout(REQUEST_TIMEOUT);
    return token == null ? request : request.header("Authorization", "Bearer " + token);
  }

  private void write(String name, String text) {
    try {
      Files.writeString(out.resolve(name), text, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** summary.txt: each step's line, prefixed with the seconds since the run started, also printed. */
  static final class Summary {
    private final Path file;
    private final Instant start;
    private final Clock clock;
    private final PrintWriter echo;

    Summary(Path file, Instant start, Clock clock, PrintWriter echo) {
      this.file = file;
      this.start = start;
      this.clock = clock;
      this.echo = echo;
    }

    long elapsed() {
      return Duration.between(start, clock.instant()).toSeconds();
    }

    void say(String line) {
      String text = "[" + elapsed() + "s] " + line;
      echo.println(text);
      echo.flush();
      raw(text);
    }

    /** A line into the file only, as it is. */
    void raw(String line) {
      try {
        Files.writeString(file, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
            StandardOpenOption.APPEND);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
