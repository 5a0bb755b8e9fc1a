package io.busload.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Real coordinator and agent processes from the bundle, a CPU sweep as the workload, one
 * fault injected mid-sweep. Each test prints one line with its counts (also appended to
 * {@code target/faults/summary.txt}); each demands zero results lost, zero duplicated and zero processes crashed.
 * Five faults on plain TCP, with the agent a cluster member ({@code BUSLOAD_TRANSPORT=cluster}, still
 * served): the coordinator kill and the network cut of {@link KillAndCutFaults} (which
 * {@link FaultsTlsIT} runs again with TLS), an agent kill, a leader kill with two coordinators, a PostgreSQL restart.
 * {@link FaultsBridgeIT} runs all five again with the agent outside the cluster, on the coordinators' bridge.
 *
 * <p>Counting: a result is one case of a run (run, kernel, parameters). Lost = cases expected but not stored;
 * duplicated = stored rows beyond one per case (a run measured twice stores the same case under new ids, which
 * the store's upsert by id cannot catch, so this is what would show it); crashed = processes the test did not
 * kill that are gone.
 */
class FaultsIT extends KillAndCutFaults {
  /** The coordinator's heartbeat timeout (Fleet.OFFLINE_AFTER): an agent silent this long is offline. */
  static final Duration HEARTBEAT_TIMEOUT = Duration.ofSeconds(10);

  /**
   * Plain TCP, as a one-machine fleet runs on loopback. Between the namespaces too, on purpose: the link is a veth
   * pair between two namespaces the test owns, no one else is on it, and what is under test is delivery across a
   * cut, not TLS (which refuses plain TCP off loopback unless told, hence {@code BUSLOAD_TLS=off} there).
   */
  @Override
  Transport transport(Path work, String coordinatorHost, String agentHost, String agentId) throws Exception {
    Map<String, String> env = coordinatorHost.equals(LOOPBACK) ? Map.of() : Map.of("BUSLOAD_TLS", "off");
    Map<String, String> coordinator = with(env, Map.of("BUSLOAD_BRIDGE_PORT", "off"));
    return new Transport(coordinator, with(env, Map.of("BUSLOAD_TRANSPORT", "cluster")), "", "plain TCP");
  }

  @Override
  String fault(String name) {
    return name;
  }

  /**
   * Fault 2: kill -9 an agent in the middle of a sweep. The coordinator is paused (SIGSTOP) for a few seconds
   * first, so that measured results wait unacked in the outbox when the agent dies. The run must be INTERRUPTED
   * within two heartbeat timeouts; on restart the outbox drains, the partial results stay, and the device's queue
   * moves on to the next sweep.
   */
  @Test
  void killAgentMidSweep_runInterruptedInTime_restartDrainsOutbox() throws Exception {
    OnLoopback started = startOnLoopback(fault("kill-agent"));
    Transport transport = started.transport();
    Path outbox = started.outbox();
    FaultRest api = started.api();
    String device = started.device();
    String first = sweep(api, device, SLOW_SWEEP);
    String next = sweep(api, device, Map.of("elements", "65536", "stride", "1,2"));
    await("3 results of the first sweep stored", 180, () -> tally(api, first).rows() >= 3 ? true : null);

    fleet.signal("coordinator", "STOP");
    Thread.sleep(4_000);
    fleet.kill("agent");
    Instant killed = Instant.now();
    fleet.signal("coordinator", "CONT");
    Set<String> unacked = outboxFiles(outbox);

    String interrupted = awaitInterrupted(api, first, 60);
    Duration toInterrupt = Duration.between(killed, Instant.now());
    Tally partial = tally(api, first);
    Set<String> measured = measured(partial, unacked);
    assertThat(sweepView(api, next).path("state").asText()).as("next sweep waits for the agent").isEqualTo("QUEUED");

    fleet.startCpuAgent("agent", fleet.agentId, outbox, List.of(), transport.agent());
    await("the next sweep done after the agent's restart", 180, () ->
        "DONE".equals(sweepView(api, next).path("state").asText()) ? true : null);
    await("outbox drained", 120, () -> outboxFiles(outbox).isEmpty() ? true : null);
    Tally after = tally(api, first);
    Set<String> missing = new HashSet<>(measured);
    missing.removeAll(after.ids());
    String finalState = sweepView(api, first).path("runs").get(0).path("state").asText();
    int crashed = fleet.alive("coordinator") ? 0 : 1;
    summary(fault("kill-agent"), measured.size(), after.rows(), missing.size(), after.duplicated(), crashed,
        transport.description() + unacked.size() + " unacked in its outbox at the kill, " + partial.rows() + " stored when the run"
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
   * Fault 4: two coordinators on one PostgreSQL; kill -9 the leader during a scheduled sweep. The follower takes
   * over intake, dispatch and schedules: it finishes the sweep, and the schedule's next fire happens exactly once.
   */
  @Test
  void twoCoordinators_killLeaderDuringScheduledSweep_followerFinishes() throws Exception {
    Path work = work(fault("failover"));
    fleet = new LocalFleet(work);
    Transport transport = transport(work, LOOPBACK, LOOPBACK, fleet.agentId);
    EmbeddedPostgres postgres = sharedPostgres(fleet.data.resolve("postgres"), LocalFleet.freePort());
    cleanup.add(postgres);
    Map<String, String> db = database(postgres);
    int portB = LocalFleet.freePort();
    fleet.startCoordinator("leader", fleet.data.resolve("a"), fleet.coordinatorPort, List.of(),
        with(db, transport.coordinator()));
    FaultRest a = FaultRest.loopback(fleet.coordinatorPort);
    FaultRest b = FaultRest.loopback(portB);
    await("first coordinator up", 150, () -> a.get("/api/agents"));
    fleet.startCoordinator("follower", fleet.data.resolve("b"), portB, List.of(), with(db, transport.second()));
    await("second coordinator up", 150, () -> b.get("/api/agents"));
    fleet.startCpuAgent("agent", fleet.agentId, fleet.data.resolveSibling("outbox"), List.of(), transport.agent());
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
    summary(fault("failover"), expected, stored, lost, duplicated, crashed,
        transport.description() + "leader killed after 3+ results of fire " + sorted.getFirst() + "; follower finished that sweep "
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
    Path work = work(fault("postgres-restart"));
    fleet = new LocalFleet(work);
    Transport transport = transport(work, LOOPBACK, LOOPBACK, fleet.agentId);
    Path pgData = fleet.data.resolve("postgres");
    int pgPort = LocalFleet.freePort();
    EmbeddedPostgres[] postgres = {sharedPostgres(pgData, pgPort)};
    cleanup.add(() -> {
      if (postgres[0] != null) {
        postgres[0].close();
      }
    });
    fleet.startCoordinator("coordinator", fleet.data.resolve("coordinator"), fleet.coordinatorPort, List.of(),
        with(database(postgres[0]), transport.coordinator()));
    Path outbox = fleet.data.resolveSibling("outbox");
    fleet.startCpuAgent("agent", fleet.agentId, outbox, List.of(), transport.agent());
    FaultRest api = FaultRest.loopback(fleet.coordinatorPort);
    String device = awaitCpuDevice(api, fleet.agentId);
    String sweepId = sweep(api, device, SLOW_SWEEP);
    Tally before = awaitStored(api, sweepId, 3);

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
    summary(fault("postgres-restart"), total, after.rows(), lost, after.duplicated(), crashed,
        transport.description() + "PostgreSQL stopped for 40 s after " + before.rows() + " stored; " + measuredWhileDown + " measured while it"
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
}
