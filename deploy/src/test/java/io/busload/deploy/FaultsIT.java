package io.busload.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Issue 6, fault tests: real coordinator and agent processes from the bundle, a CPU sweep as the workload, one
 * fault injected mid-sweep. Each test prints one line with its counts (also appended to
 * {@code target/faults/summary.txt}); each demands zero results lost, zero duplicated and zero processes crashed.
 *
 * <p>Counting: a result is one case of a run (run, kernel, parameters). Lost = cases expected but not stored;
 * duplicated = stored rows beyond one per case (a run measured twice stores the same case under new ids, which
 * the store's upsert by id cannot catch, so this is what would show it); crashed = processes the test did not
 * kill that are gone.
 */
class FaultsIT {
  static final Path WORK = Path.of("target", "faults");
  /** The coordinator's heartbeat timeout (Fleet.OFFLINE_AFTER): an agent silent this long is offline. */
  static final Duration HEARTBEAT_TIMEOUT = Duration.ofSeconds(10);
  /** About a second per case on the CPU backend: a 31-case sweep lasts long enough for a fault to land inside it. */
  static final Map<String, String> SLOW_SWEEP = Map.of("elements", "65536", "stride", strides(30));
  /** Its cases: the 30 strides and the memcpy ceiling. */
  static final int SLOW_CASES = 31;

  private LocalFleet fleet;
  private final List<AutoCloseable> cleanup = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    if (fleet != null) {
      fleet.close();
    }
    for (AutoCloseable c : cleanup.reversed()) {
      c.close();
    }
  }

  /** Fault 1: kill -9 the coordinator in the middle of a sweep, restart it: every result arrives exactly once. */
  @Test
  void killCoordinatorMidSweep_restarted_everyResultStoredOnce() throws Exception {
    fleet = new LocalFleet(work("kill-coordinator"));
    Path outbox = fleet.data.resolveSibling("outbox");
    fleet.startCoordinator();
    fleet.startCpuAgent("agent", fleet.agentId, outbox, List.of(), Map.of());
    FaultRest api = FaultRest.loopback(fleet.coordinatorPort);
    String device = awaitCpuDevice(api, fleet.agentId);
    String sweepId = sweep(api, device, SLOW_SWEEP);

    Tally atKill = await("5 results stored", 180, () -> {
      Tally t = tally(api, sweepId);
      return t.rows() >= 5 ? t : null;
    });
    fleet.kill("coordinator");
    Instant killed = Instant.now();
    assertThat(atKill.cases().size()).as("killed mid-sweep").isLessThan(SLOW_CASES);
    Thread.sleep(3_000);
    fleet.startCoordinator();

    JsonNode done = await("sweep done after the coordinator's restart", 300, () -> {
      JsonNode s = sweepView(api, sweepId);
      return "DONE".equals(s.path("state").asText()) ? s : null;
    });
    // The run's total is the agent's plan (the options' 30 strides and the ceiling), reported with its statuses.
    int total = done.path("total").asInt();
    Tally after = tally(api, sweepId);
    long measuredWhileDown = after.measuredAt().stream().filter(t -> t.isAfter(killed)).count();
    int lost = total - after.cases().size();
    int crashed = fleet.alive("agent") ? 0 : 1;
    int leftInOutbox = outboxFiles(outbox).size();
    summary("kill-coordinator", total, after.rows(), lost, after.duplicated(), crashed,
        "killed after " + atKill.rows() + " stored, restarted 3 s later; " + measuredWhileDown
            + " measured after the kill; run " + done.path("runs").get(0).path("state").asText() + "; outbox left "
            + leftInOutbox);
    assertThat(total).isEqualTo(SLOW_CASES);
    assertThat(lost).isZero();
    assertThat(after.duplicated()).isZero();
    assertThat(crashed).isZero();
    assertThat(leftInOutbox).isZero();
    assertThat(done.path("runs").get(0).path("state").asText()).isEqualTo("DONE");
  }

  /**
   * Fault 2: kill -9 an agent in the middle of a sweep. The coordinator is paused (SIGSTOP) for a few seconds
   * first, so that measured results wait unacked in the outbox when the agent dies. The run must be INTERRUPTED
   * within two heartbeat timeouts; on restart the outbox drains, the partial results stay, and the device's queue
   * moves on to the next sweep.
   */
  @Test
  void killAgentMidSweep_runInterruptedInTime_restartDrainsOutbox() throws Exception {
    fleet = new LocalFleet(work("kill-agent"));
    Path outbox = fleet.data.resolveSibling("outbox");
    fleet.startCoordinator();
    fleet.startCpuAgent("agent", fleet.agentId, outbox, List.of(), Map.of());
    FaultRest api = FaultRest.loopback(fleet.coordinatorPort);
    String device = awaitCpuDevice(api, fleet.agentId);
    String first = sweep(api, device, SLOW_SWEEP);
    String next = sweep(api, device, Map.of("elements", "65536", "stride", "1,2"));
    await("3 results of the first sweep stored", 180, () -> tally(api, first).rows() >= 3 ? true : null);

    fleet.signal("coordinator", "STOP");
    Thread.sleep(4_000);
    fleet.kill("agent");
    Instant killed = Instant.now();
    fleet.signal("coordinator", "CONT");
    Set<String> unacked = outboxFiles(outbox);

    String interrupted = await("first run INTERRUPTED", 60, () -> {
      JsonNode run = sweepView(api, first).path("runs").get(0);
      return "INTERRUPTED".equals(run.path("state").asText()) ? run.path("message").asText() : null;
    });
    Duration toInterrupt = Duration.between(killed, Instant.now());
    Tally partial = tally(api, first);
    Set<String> measured = new HashSet<>(partial.ids());
    measured.addAll(unacked);
    assertThat(sweepView(api, next).path("state").asText()).as("next sweep waits for the agent").isEqualTo("QUEUED");

    fleet.startCpuAgent("agent", fleet.agentId, outbox, List.of(), Map.of());
    await("the next sweep done after the agent's restart", 180, () ->
        "DONE".equals(sweepView(api, next).path("state").asText()) ? true : null);
    await("outbox drained", 120, () -> outboxFiles(outbox).isEmpty() ? true : null);
    Tally after = tally(api, first);
    Set<String> missing = new HashSet<>(measured);
    missing.removeAll(after.ids());
    String finalState = sweepView(api, first).path("runs").get(0).path("state").asText();
    int crashed = fleet.alive("coordinator") ? 0 : 1;
    summary("kill-agent", measured.size(), after.rows(), missing.size(), after.duplicated(), crashed,
        unacked.size() + " unacked in its outbox at the kill, " + partial.rows() + " stored when the run"
            + " was INTERRUPTED " + toInterrupt.toMillis() / 1000.0 + " s after the kill (limit "
            + 2 * HEARTBEAT_TIMEOUT.toSeconds() + " s); outbox drained after restart; next sweep DONE");
    assertThat(unacked).as("results waiting in the outbox at the kill").isNotEmpty();
    assertThat(toInterrupt).isLessThanOrEqualTo(HEARTBEAT_TIMEOUT.multipliedBy(2));
    assertThat(interrupted).contains("offline");
    assertThat(missing).isEmpty();
    assertThat(after.duplicated()).isZero();
    assertThat(crashed).isZero();
    assertThat(finalState).as("partial run stays interrupted").isEqualTo("INTERRUPTED");
    assertThat(after.rows()).isEqualTo(measured.size());
  }

  /**
   * Fault 3: the agent's host loses its link to the coordinator's host for 60 s (two network namespaces joined by
   * a veth pair; the agent's end is taken down). The agent keeps measuring; everything arrives after the link is
   * back, and the run ends DONE.
   */
  @Test
  void networkCut60s_agentKeepsMeasuring_everythingArrivesAfterHeal() throws Exception {
    Optional<String> unavailable = NetnsPair.unavailable();
    if (unavailable.isPresent()) {
      System.out.println("fault netns-cut: skipped: " + unavailable.get());
      Assumptions.abort(unavailable.get());
    }
    NetnsPair net = new NetnsPair();
    cleanup.add(net);
    net.create();
    fleet = new LocalFleet(work("netns-cut"));
    Path outbox = fleet.data.resolveSibling("outbox");
    // Plain TCP on purpose: the link is a veth pair between two namespaces this test owns, no one else is on it, and
    // what is under test is delivery across a cut, not TLS (which refuses plain TCP off loopback unless told).
    fleet.startCoordinator("coordinator", fleet.data, fleet.coordinatorPort, NetnsPair.in(net.coordinatorNs),
        Map.of("BUSLOAD_CLUSTER_HOST", net.coordinatorIp, "BUSLOAD_CLUSTER_MEMBERS", net.coordinatorIp,
            "BUSLOAD_TLS", "off"));
    fleet.startCpuAgent("agent", fleet.agentId, outbox, NetnsPair.in(net.agentNs),
        Map.of("BUSLOAD_CLUSTER_HOST", net.agentIp, "BUSLOAD_CLUSTER_MEMBERS", net.coordinatorIp,
            "BUSLOAD_TLS", "off"));
    FaultRest api = FaultRest.inNamespace(net.coordinatorNs, fleet.coordinatorPort);
    String device = awaitCpuDevice(api, fleet.agentId);
    String sweepId = sweep(api, device, SLOW_SWEEP);
    Tally beforeCut = await("3 results stored", 180, () -> {
      Tally t = tally(api, sweepId);
      return t.rows() >= 3 ? t : null;
    });

    net.cut();
    Instant cut = Instant.now();
    Thread.sleep(60_000);
    int outboxAtHeal = outboxFiles(outbox).size();
    String stateDuringCut = sweepView(api, sweepId).path("runs").get(0).path("state").asText();
    net.heal();
    Instant healed = Instant.now();

    JsonNode done = await("sweep done after the link is back", 300, () -> {
      JsonNode s = sweepView(api, sweepId);
      return "DONE".equals(s.path("state").asText()) ? s : null;
    });
    Duration toArrive = Duration.between(healed, Instant.now());
    int total = done.path("total").asInt();
    Tally after = tally(api, sweepId);
    long measuredDuringCut = after.measuredAt().stream().filter(t -> t.isAfter(cut) && t.isBefore(healed)).count();
    int lost = total - after.cases().size();
    int crashed = (fleet.alive("coordinator") ? 0 : 1) + (fleet.alive("agent") ? 0 : 1);
    summary("netns-cut", total, after.rows(), lost, after.duplicated(), crashed,
        "link down 60 s after " + beforeCut.rows() + " stored; " + measuredDuringCut + " measured during the cut, "
            + outboxAtHeal + " waiting in the outbox at heal; run " + stateDuringCut + " during the cut, "
            + done.path("runs").get(0).path("state").asText() + " " + toArrive.toSeconds() + " s after heal");
    assertThat(measuredDuringCut).as("the agent kept measuring").isPositive();
    assertThat(outboxAtHeal).isPositive();
    assertThat(total).isEqualTo(SLOW_CASES);
    assertThat(lost).isZero();
    assertThat(after.duplicated()).isZero();
    assertThat(crashed).isZero();
    assertThat(outboxFiles(outbox)).isEmpty();
  }

  /**
   * Fault 4: two coordinators on one PostgreSQL; kill -9 the leader during a scheduled sweep. The follower takes
   * over intake, dispatch and schedules: it finishes the sweep, and the schedule's next fire happens exactly once.
   */
  @Test
  void twoCoordinators_killLeaderDuringScheduledSweep_followerFinishes() throws Exception {
    fleet = new LocalFleet(work("failover"));
    EmbeddedPostgres postgres = sharedPostgres(fleet.data.resolve("postgres"), LocalFleet.freePort());
    cleanup.add(postgres);
    Map<String, String> db = database(postgres);
    int portB = LocalFleet.freePort();
    fleet.startCoordinator("leader", fleet.data.resolve("a"), fleet.coordinatorPort, List.of(), db);
    FaultRest a = FaultRest.loopback(fleet.coordinatorPort);
    FaultRest b = FaultRest.loopback(portB);
    await("first coordinator up", 150, () -> a.get("/api/agents"));
    fleet.startCoordinator("follower", fleet.data.resolve("b"), portB, List.of(), db);
    await("second coordinator up", 150, () -> b.get("/api/agents"));
    fleet.startCpuAgent("agent", fleet.agentId, fleet.data.resolveSibling("outbox"), List.of(), Map.of());
    String device = awaitCpuDevice(a, fleet.agentId);

    JsonNode schedule = a.post("/api/schedules", "{\"name\":\"faults failover\",\"cron\":\"* * * * *\","
        + "\"suite\":\"stride\",\"options\":" + json(SLOW_SWEEP) + ",\"target\":{\"kind\":\"device\",\"value\":\""
        + device + "\"}}");
    String scheduleId = schedule.path("id").asText();
    String firstSweep = await("the schedule's first fire", 150, () -> {
      JsonNode fires = a.get("/api/schedules/" + scheduleId).path("fires");
      return fires.isEmpty() || fires.get(0).path("sweepId").isNull() ? null : fires.get(0).path("sweepId").asText();
    });
    await("3 results of the scheduled sweep stored", 180, () -> tally(a, firstSweep).rows() >= 3 ? true : null);
    assertThat(fleet.log("leader")).doesNotContain("another coordinator leads");
    fleet.kill("leader");
    Instant killed = Instant.now();

    await("scheduled sweep done by the follower", 300, () ->
        "DONE".equals(sweepView(b, firstSweep).path("state").asText()) ? true : null);
    Duration toFinish = Duration.between(killed, Instant.now());
    JsonNode fires = await("the next fire, by the follower", 180, () -> {
      JsonNode f = b.get("/api/schedules/" + scheduleId).path("fires");
      return f.size() >= 2 && !f.get(0).path("sweepId").isNull() && !f.get(1).path("sweepId").isNull() ? f : null;
    });
    b.post("/api/schedules/" + scheduleId + "/pause", "{}");
    fires = b.get("/api/schedules/" + scheduleId).path("fires");
    List<String> sweepIds = new ArrayList<>();
    List<Instant> fireTimes = new ArrayList<>();
    fires.forEach(f -> {
      sweepIds.add(f.path("sweepId").asText());
      fireTimes.add(Instant.parse(f.path("fireTime").asText()));
    });
    for (String id : sweepIds) {
      await("sweep " + id + " done", 300, () -> "DONE".equals(sweepView(b, id).path("state").asText()) ? true : null);
    }
    JsonNode allSweeps = b.get("/api/sweeps?limit=1000");
    int expected = 0;
    int stored = 0;
    int lost = 0;
    int duplicated = 0;
    for (String id : sweepIds) {
      int total = sweepView(b, id).path("total").asInt();
      Tally t = tally(b, id);
      expected += total;
      stored += t.rows();
      lost += total - t.cases().size();
      duplicated += t.duplicated();
    }
    List<Instant> sorted = fireTimes.stream().sorted().toList();
    int missedFires = 0;
    for (int i = 1; i < sorted.size(); i++) {
      missedFires += (int) (Duration.between(sorted.get(i - 1), sorted.get(i)).toMinutes() - 1);
    }
    int doubledFires = allSweeps.size() - new HashSet<>(sweepIds).size();
    int crashed = (fleet.alive("follower") ? 0 : 1) + (fleet.alive("agent") ? 0 : 1);
    summary("failover", expected, stored, lost, duplicated, crashed,
        "leader killed after 3+ results of fire " + sorted.getFirst() + "; follower finished that sweep "
            + toFinish.toSeconds() + " s later; fires " + sorted.size() + " (" + sorted + "), missed " + missedFires
            + ", doubled " + doubledFires + "; sweeps in the store " + allSweeps.size());
    assertThat(fleet.log("follower")).contains("leading now");
    assertThat(expected).isEqualTo(SLOW_CASES * sweepIds.size());
    assertThat(lost).isZero();
    assertThat(duplicated).isZero();
    assertThat(crashed).isZero();
    assertThat(missedFires).isZero();
    assertThat(doubledFires).isZero();
    assertThat(new HashSet<>(fireTimes)).hasSize(fireTimes.size());
  }

  /**
   * Fault 5: PostgreSQL (an external server, as in production) is stopped for 40 s in the middle of a sweep and
   * started again on the same data. Intake pauses (each result is refused with a store failure and kept by the
   * agent) and resumes; nothing is lost.
   */
  @Test
  void postgresRestartedMidSweep_intakePausesAndResumes_nothingLost() throws Exception {
    fleet = new LocalFleet(work("postgres-restart"));
    Path pgData = fleet.data.resolve("postgres");
    int pgPort = LocalFleet.freePort();
    EmbeddedPostgres[] postgres = {sharedPostgres(pgData, pgPort)};
    cleanup.add(() -> {
      if (postgres[0] != null) {
        postgres[0].close();
      }
    });
    fleet.startCoordinator("coordinator", fleet.data.resolve("coordinator"), fleet.coordinatorPort, List.of(),
        database(postgres[0]));
    Path outbox = fleet.data.resolveSibling("outbox");
    fleet.startCpuAgent("agent", fleet.agentId, outbox, List.of(), Map.of());
    FaultRest api = FaultRest.loopback(fleet.coordinatorPort);
    String device = awaitCpuDevice(api, fleet.agentId);
    String sweepId = sweep(api, device, SLOW_SWEEP);
    Tally before = await("3 results stored", 180, () -> {
      Tally t = tally(api, sweepId);
      return t.rows() >= 3 ? t : null;
    });

    postgres[0].close();
    postgres[0] = null;
    Instant stopped = Instant.now();
    // Longer than the connection pool's 30 s wait: store calls begun early in the outage fail (no ack, the agent
    // resends), later ones wait and succeed once the server is back. Both paths are taken.
    Thread.sleep(40_000);
    int outboxWhileDown = outboxFiles(outbox).size();
    postgres[0] = sharedPostgres(pgData, pgPort);
    Instant restarted = Instant.now();

    await("sweep done after PostgreSQL's restart", 300, () ->
        "DONE".equals(sweepView(api, sweepId).path("state").asText()) ? true : null);
    int total = sweepView(api, sweepId).path("total").asInt();
    Tally after = tally(api, sweepId);
    long measuredWhileDown = after.measuredAt().stream().filter(t -> t.isAfter(stopped) && t.isBefore(restarted))
        .count();
    // While the server is down a store call waits in the connection pool (30 s) or fails; either way no ack goes
    // out, so the agent keeps each result in its outbox and resends it: that is the pause.
    long storeFailures = fleet.log("coordinator").lines().filter(l -> l.contains("cannot store")).count();
    long resends = fleet.log("agent").lines().filter(l -> l.contains("busload.results") && l.contains("retrying"))
        .count();
    int lost = total - after.cases().size();
    int crashed = (fleet.alive("coordinator") ? 0 : 1) + (fleet.alive("agent") ? 0 : 1);
    summary("postgres-restart", total, after.rows(), lost, after.duplicated(), crashed,
        "PostgreSQL stopped for 40 s after " + before.rows() + " stored; " + measuredWhileDown + " measured while it"
            + " was down, " + outboxWhileDown + " unacked in the outbox just before the restart; retries of the"
            + " agent's head-of-queue result logged " + resends + ", coordinator store failures logged " + storeFailures);
    assertThat(measuredWhileDown).isPositive();
    assertThat(outboxWhileDown).as("intake paused: nothing acked while PostgreSQL was down").isPositive();
    assertThat(total).isEqualTo(SLOW_CASES);
    assertThat(lost).isZero();
    assertThat(after.duplicated()).isZero();
    assertThat(crashed).isZero();
    assertThat(outboxFiles(outbox)).isEmpty();
  }

  // ---- helpers

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

  private String awaitCpuDevice(FaultRest api, String agentId) throws Exception {
    return awaitCpuDevice(fleet, List.of("coordinator", "leader", "follower", "agent"), api, agentId);
  }

  /** The CPU device of {@code agentId} once the coordinator behind {@code api} has it online (other fault tests). */
  static String awaitCpuDevice(LocalFleet fleet, List<String> logNames, FaultRest api, String agentId)
      throws Exception {
    return await(fleet, logNames, "agent " + agentId + " online with a CPU device", 180, () -> {
      for (JsonNode agent : api.get("/api/agents")) {
        if (agentId.equals(agent.path("agentId").asText()) && agent.path("online").asBoolean()) {
          for (JsonNode device : agent.path("devices")) {
            if ("cpu".equals(device.path("kind").asText())) {
              return device.path("id").asText();
            }
          }
        }
      }
      return null;
    });
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

  private <T> T await(String what, int seconds, Callable<T> probe) throws Exception {
    return await(fleet, List.of("coordinator", "leader", "follower", "agent"), what, seconds, probe);
  }

  /**
   * Polls {@code probe} until it returns a value; an {@link IOException} means "down, try again". Fails when it
   * times out or when a process of {@code fleet} exited, with the tails of the {@code logNames} logs.
   */
  static <T> T await(LocalFleet fleet, List<String> logNames, String what, int seconds, Callable<T> probe)
      throws Exception {
    long deadline = System.nanoTime() + seconds * 1_000_000_000L;
    Exception last = null;
    List<String> exited = List.of();
    while (System.nanoTime() < deadline && exited.isEmpty()) {
      exited = fleet.exited();
      try {
        T value = probe.call();
        if (value != null) {
          return value;
        }
      } catch (IOException e) {
        last = e; // down or restarting: try again
      }
      Thread.sleep(500);
    }
    StringBuilder logs = new StringBuilder();
    for (String name : logNames) {
      String log = fleet.log(name);
      if (!log.startsWith("(no log")) {
        logs.append("\n--- ").append(name).append(" log (tail)\n")
            .append(log.length() > 6000 ? log.substring(log.length() - 6000) : log);
      }
    }
    throw new AssertionError((exited.isEmpty() ? "timed out after " + seconds + " s" : exited + " exited")
        + " waiting for " + what
        + (last == null ? "" : " (last: " + last + ")") + logs);
  }
}
