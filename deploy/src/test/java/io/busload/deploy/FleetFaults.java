package io.busload.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;

/**
 * What the fault tests on the bundle's processes share, written once: the test's fleet and
 * what else it started (network namespaces, a PostgreSQL), stopped after each test, the fleet first; the slow sweep
 * faults land in; reading the store back through the REST API; waiting, with the processes' logs when a wait fails;
 * and the one summary line each fault prints.
 */
abstract class FleetFaults {
  static final Path WORK = Path.of("target", "faults");
  /** About a second per case on the CPU backend: a 31-case sweep lasts long enough for a fault to land inside it. */
  static final Map<String, String> SLOW_SWEEP = Map.of("elements", "65536", "stride", strides(30));
  /** Its cases: the 30 strides and the memcpy ceiling. */
  static final int SLOW_CASES = 31;

  LocalFleet fleet;
  final List<AutoCloseable> cleanup = new ArrayList<>();

  /** The processes whose logs a failed wait shows (a name the fleet never started is passed over). */
  abstract List<String> logs();

  @AfterEach
  void stop() throws Exception {
    if (fleet != null) {
      fleet.close();
    }
    for (AutoCloseable c : cleanup.reversed()) {
      c.close();
    }
  }

  <T> T await(String what, int seconds, Callable<T> probe) throws Exception {
    return await(fleet, logs(), what, seconds, probe);
  }

  /** The sweep's tally once at least {@code rows} of its results are stored. */
  Tally awaitStored(FaultRest api, String sweepId, int rows) throws Exception {
    return await(rows + " results stored", 180, () -> {
      Tally t = tally(api, sweepId);
      return t.rows() >= rows ? t : null;
    });
  }

  /** The sweep's view once it is DONE; {@code what} names the wait in a failure. */
  JsonNode awaitDone(FaultRest api, String sweepId, String what) throws Exception {
    return await(what, 300, () -> {
      JsonNode s = sweepView(api, sweepId);
      return "DONE".equals(s.path("state").asText()) ? s : null;
    });
  }

  /** The message of the sweep's first run once that run is INTERRUPTED. */
  String awaitInterrupted(FaultRest api, String sweepId, int seconds) throws Exception {
    return await("first run INTERRUPTED", seconds, () -> {
      JsonNode run = sweepView(api, sweepId).path("runs").get(0);
      return "INTERRUPTED".equals(run.path("state").asText()) ? run.path("message").asText() : null;
    });
  }

  /** Every result measured by a run cut short: those stored and those still waiting, unacked, in the outbox. */
  static Set<String> measured(Tally stored, Set<String> unacked) {
    Set<String> all = new java.util.HashSet<>(stored.ids());
    all.addAll(unacked);
    return all;
  }

  /** One case of a run, as the store holds it. */
  record Tally(int rows, Set<String> ids, Set<String> cases, List<Instant> measuredAt) {
    int duplicated() {
      return rows - cases.size();
    }
  }

  static Tally tally(FaultRest api, String sweepId) throws IOException, InterruptedException {
    JsonNode results = api.get("/api/results?sweepId=" + sweepId + "&limit=100000");
    Set<String> ids = new HashSet<>();
    Set<String> cases = new HashSet<>();
    List<Instant> measuredAt = new ArrayList<>();
    for (JsonNode r : results) {
      ids.add(r.path("id").asText());
      cases.add(r.path("runId").asText() + "|" + r.path("kernel").asText() + "|"
          + new TreeMap<>(io.busload.protocol.JsonCodec.MAPPER.convertValue(r.path("params"), Map.class)));
      measuredAt.add(Instant.parse(r.path("measuredAt").asText()));
    }
    return new Tally(results.size(), ids, cases, measuredAt);
  }

  static JsonNode sweepView(FaultRest api, String sweepId) throws IOException, InterruptedException {
    return api.get("/api/sweeps/" + sweepId);
  }

  static String sweep(FaultRest api, String device, Map<String, String> options) throws Exception {
    return api.post("/api/sweeps", "{\"suite\":\"stride\",\"devices\":[\"" + device + "\"],\"options\":"
        + json(options) + "}").path("id").asText();
  }

  /** The CPU device of {@code agentId} once the coordinator behind {@code api} has it online. */
  String awaitCpuDevice(FaultRest api, String agentId) throws Exception {
    return await("agent " + agentId + " online with a CPU device", 180,
        () -> LocalFleet.onlineCpuDevice(api.get("/api/agents"), agentId));
  }

  /** Result files waiting for their ack, by id (temp files and corrupt/ are not results in flight). */
  static Set<String> outboxFiles(Path outbox) throws IOException {
    if (!Files.isDirectory(outbox)) {
      return Set.of();
    }
    try (Stream<Path> files = Files.list(outbox)) {
      return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".json"))
          .map(n -> n.substring(0, n.length() - ".json".length())).collect(Collectors.toSet());
    }
  }

  /** A PostgreSQL server of the test's own, on a fixed port so a restart comes back where the coordinators look. */
  static EmbeddedPostgres sharedPostgres(Path dir, int port) throws IOException {
    Files.createDirectories(dir);
    return EmbeddedPostgres.builder().setDataDirectory(dir).setCleanDataDirectory(false).setPort(port)
        .setServerConfig("listen_addresses", "127.0.0.1")
        // As the coordinator's own embedded server: an ack must stand for a commit that is on disk.
        .setServerConfig("fsync", "on").setServerConfig("synchronous_commit", "on")
        .start();
  }

  static Map<String, String> database(EmbeddedPostgres postgres) {
    return Map.of("BUSLOAD_DB_URL", "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/postgres",
        "BUSLOAD_DB_USER", "postgres", "BUSLOAD_DB_PASSWORD", "postgres");
  }

  static String strides(int n) {
    return IntStream.rangeClosed(1, n).mapToObj(String::valueOf).collect(Collectors.joining(","));
  }

  static String json(Map<String, String> map) throws IOException {
    return io.busload.protocol.JsonCodec.MAPPER.writeValueAsString(new TreeMap<>(map));
  }

  static Path work(String name) throws IOException {
    Files.createDirectories(WORK);
    return Files.createTempDirectory(WORK.toAbsolutePath(), name + "-");
  }

  /** The one line each test prints; also kept in target/faults/summary.txt for docs/reliability.md. */
  static void summary(String fault, int expected, int stored, int lost, int duplicated, int crashed, String detail)
      throws IOException {
    String line = String.format("fault %s: results %d expected, %d stored, lost %d, duplicated %d, crashed %d (%s)",
        fault, expected, stored, lost, duplicated, crashed, detail);
    System.out.println(line);
    Files.writeString(WORK.resolve("summary.txt"), Instant.now() + " " + line + System.lineSeparator(),
        StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
  }

  /**
   * Polls {@code probe} until it returns a value; an {@link IOException} means "down, try again". Fails when it
   * times out or when a process of {@code fleet} exited, with the tails of the {@code logNames} logs.
   */
  static <T> T await(LocalFleet fleet, List<String> logNames, String what, int seconds, Callable<T> probe)
      throws Exception {
    return Poll.onFleet(fleet, IOException.class, logNames).until(what, seconds, probe);
  }

  /** {@code base} with {@code more} over it: a process's environment and what one test or transport adds. */
  static Map<String, String> with(Map<String, String> base, Map<String, String> more) {
    Map<String, String> all = new java.util.HashMap<>(base);
    all.putAll(more);
    return all;
  }
}
