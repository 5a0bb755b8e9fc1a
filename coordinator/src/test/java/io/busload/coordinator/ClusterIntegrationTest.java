package io.busload.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.agent.cluster.ClusterLink;
import io.busload.agent.cluster.Delivery;
import io.busload.agent.cluster.Outbox;
import io.busload.coordinator.fleet.MeasuredAtWindow;
import io.busload.coordinator.store.DatabaseSettings;
import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.KernelResult;
import io.busload.protocol.RunRequest;
import io.busload.protocol.RunStatus;
import io.busload.protocol.cluster.ClusterSettings;
import io.busload.testsupport.Await;
import io.busload.testsupport.LoopbackCluster;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The coordinator in a real Hazelcast cluster (unique name, free ports, loopback), with the test joined as an
 * agent-role member speaking docs/contract.md.
 */
class ClusterIntegrationTest {
  private static final DeviceInfo GPU = Fixtures.gpu("it-host", 0);
  private static final DeviceInfo CPU = Fixtures.cpu("it-host");

  @TempDir Path dir;
  private final DatabaseSettings database = TestDatabase.fresh();
  @AutoClose private final LoopbackCluster cluster = new LoopbackCluster("busload-test");
  private CoordinatorSettings settings;
  private Coordinator coordinator;
  private Vertx agentVertx;
  private AgentDouble agent;
  private Http http;
  private final BlockingQueue<KernelResult> live = new LinkedBlockingQueue<>();
  private final BlockingQueue<RunStatus> liveRuns = new LinkedBlockingQueue<>();

  @BeforeEach
  void start() throws Exception {
    settings = ClusterCoordinator.settings(cluster, dir, database);
    coordinator = Coordinator.start(settings).await(60, TimeUnit.SECONDS);
    // Whichever coordinator the field holds then: a test restarts it with other settings.
    cluster.onClose(() -> coordinator.stop().await(30, TimeUnit.SECONDS));
    agentVertx = cluster.join(ClusterSettings.AGENT);
    agentVertx.eventBus().<KernelResult>consumer(Addresses.LIVE_RESULTS, m -> live.add(m.body()))
        .completion().await(20, TimeUnit.SECONDS);
    agentVertx.eventBus().<RunStatus>consumer(Addresses.LIVE_RUNS, m -> liveRuns.add(m.body()))
        .completion().await(20, TimeUnit.SECONDS);
    agent = new AgentDouble(agentVertx, Fixtures.hello("it-agent", GPU, CPU));
    cluster.onClose(agent);
    http = new Http(coordinator.httpPort());
  }

  @Test
  void agentMember_sweepThroughResults_ackedAfterStoreServedAndSweepDone() throws Exception {
    JsonNode agents = Http.json(http.get("/api/agents"));
    assertThat(agents.get(0).get("online").asBoolean()).isTrue();

    String sweepA = created(http.post("/api/sweeps",
        "{\"suite\":\"stride\",\"devices\":[\"it-host/cuda:0\",\"it-host/cpu\"],\"options\":{\"elements\":\"4096\"}}"));
    String sweepB = created(http.post("/api/sweeps", "{\"suite\":\"stride\",\"devices\":[\"it-host/cuda:0\"]}"));

    // One run per device of sweep A; sweep B waits: the GPU runs one benchmark at a time.
    List<RunRequest> first = List.of(agent.nextRequest(Duration.ofSeconds(15)), agent.nextRequest(Duration.ofSeconds(15)));
    assertThat(first).extracting(RunRequest::sweepId).containsOnly(sweepA);
    assertThat(first).extracting(RunRequest::deviceId).containsExactlyInAnyOrder(GPU.id(), CPU.id());
    assertThat(first.getFirst().options()).containsEntry("elements", "4096");
    assertThat(agent.requests.poll(2, TimeUnit.SECONDS)).as("no second run on a busy GPU").isNull();
    RunRequest gpuRun = first.stream().filter(r -> r.deviceId().equals(GPU.id())).findFirst().orElseThrow();
    RunRequest cpuRun = first.stream().filter(r -> r.deviceId().equals(CPU.id())).findFirst().orElseThrow();

    assertThat(agent.status(gpuRun, RunStatus.State.RUNNING, 0, 3).ok()).isTrue();
    assertThat(runState(sweepA, gpuRun.runId())).isEqualTo("RUNNING");
    List<KernelResult> sent = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      KernelResult result = Fixtures.result(sweepA, gpuRun.runId(), "it-agent", GPU, 1L << i, i != 2, Instant.now());
      Ack ack = agent.result(result);
      // Read the database the moment the ack arrives: the row must already be committed.
      assertThat(storedIds(Set.of(result.id()))).as("stored when acked").containsExactly(result.id());
      assertThat(ack.ok()).isTrue();
      assertThat(ack.id()).isEqualTo(result.id().toString());
      sent.add(result);
    }
    assertThat(agent.status(gpuRun, RunStatus.State.DONE, 3, 3).ok()).isTrue();

    RunRequest next = agent.nextRequest(Duration.ofSeconds(15));
    assertThat(next.sweepId()).isEqualTo(sweepB);
    assertThat(next.deviceId()).isEqualTo(GPU.id());

    assertThat(agent.status(cpuRun, RunStatus.State.RUNNING, 0, 1).ok()).isTrue();
    KernelResult cpuResult = Fixtures.result(sweepA, cpuRun.runId(), "it-agent", CPU, 2, true, Instant.now());
    assertThat(agent.result(cpuResult).ok()).isTrue();
    sent.add(cpuResult);
    assertThat(agent.result(cpuResult).ok()).as("a redelivered result is acked again").isTrue();
    assertThat(agent.status(cpuRun, RunStatus.State.DONE, 1, 1).ok()).isTrue();
    assertThat(agent.status(next, RunStatus.State.FAILED, 0, 3).ok()).isTrue();

    JsonNode a = Http.json(http.get("/api/sweeps/" + sweepA));
    assertThat(a.get("state").asText()).isEqualTo("DONE");
    assertThat(a.get("completed").asInt()).isEqualTo(4);
    assertThat(a.get("total").asInt()).isEqualTo(4);
    JsonNode b = Http.json(http.get("/api/sweeps/" + sweepB));
    assertThat(b.get("state").asText()).isEqualTo("FAILED");
    assertThat(b.get("runs").get(0).get("message").asText()).isEqualTo("kernel crashed");
    assertThat(Http.json(http.get("/api/sweeps")).get(0).get("id").asText()).isEqualTo(sweepB);

    JsonNode results = Http.json(http.get("/api/results?sweepId=" + sweepA));
    assertThat(results).hasSize(4);
    assertThat(ids(results)).containsExactlyInAnyOrderElementsOf(sent.stream().map(r -> r.id().toString()).toList());
    HttpResponse<String> csv = http.get("/api/results?sweepId=" + sweepA, "text/csv");
    assertThat(csv.body().lines().toList()).hasSize(5).first().asString().startsWith("id,sweepId,runId,measuredAt");
    assertThat(http.get("/api/results?sweepId=" + sweepA + "&device=it-host/cpu&format=csv").body().lines())
        .hasSize(2).last().asString().startsWith(cpuResult.id() + "," + sweepA + "," + cpuRun.runId());

    Set<UUID> published = new java.util.HashSet<>();
    for (int i = 0; i < 4; i++) {
      KernelResult r = live.poll(10, TimeUnit.SECONDS);
      assertThat(r).as("live result %d", i).isNotNull();
      published.add(r.id());
    }
    assertThat(published).containsExactlyInAnyOrderElementsOf(sent.stream().map(KernelResult::id).toList());
    assertThat(live.poll(500, TimeUnit.MILLISECONDS)).as("the redelivery is not published again").isNull();
    List<RunStatus> statuses = new ArrayList<>();
    for (RunStatus s; (s = liveRuns.poll(2, TimeUnit.SECONDS)) != null; ) {
      statuses.add(s);
    }
    assertThat(statuses).extracting(RunStatus::state).contains(RunStatus.State.RUNNING, RunStatus.State.DONE,
        RunStatus.State.FAILED);
  }

  @Test
  void result_newerSchemaVersion_refusedWithReasonAndNotStored() throws Exception {
    KernelResult newer = Fixtures.withSchemaVersion(
        Fixtures.result(null, null, "it-agent", GPU, 4, true, Instant.now()), 2);

    Ack ack = agent.result(newer);

    assertThat(ack.ok()).isFalse();
    assertThat(ack.id()).isEqualTo(newer.id().toString());
    assertThat(ack.reason()).isEqualTo("schema version 2 is newer than 1");
    assertThat(storedIds(Set.of(newer.id()))).isEmpty();
  }

  /**
   * An agent whose clock is a year ahead: what it measured is refused naming the skew, and stays in its outbox (only
   * an ok ack deletes an outbox file, as the agent's own delivery does), while its results measured at a right time
   * go on; no month partition is made for the wrong time. Once the operator widens the limit, the kept result is
   * delivered from the outbox as the agent does at its next start: nothing was lost.
   */
  @Test
  void agentOutbox_resultFromAClockAYearAhead_refusedNamingTheSkewKeptInTheOutboxAndLaterTaken() throws Exception {
    Outbox outbox = Outbox.open(dir.resolve("agent-outbox"));
    KernelResult ahead = Fixtures.result(null, null, "it-agent", GPU, 4, true,
        Instant.now().plus(Duration.ofDays(366)));
    KernelResult onTime = Fixtures.result(null, null, "it-agent", GPU, 8, true, Instant.now());
    outbox.put(ahead);
    outbox.put(onTime);

    Throwable refused = deliver(outbox, ahead).transform(done -> Future.succeededFuture(done.cause()))
        .await(30, TimeUnit.SECONDS);
    deliver(outbox, onTime).await(30, TimeUnit.SECONDS);

    assertThat(refused).isInstanceOf(Delivery.Refused.class)
        .hasMessageStartingWith("measuredAt: " + ahead.measuredAt() + " is 365 d ahead of the coordinator's clock;"
            + " the limit is 24 h");
    assertThat(outbox.pending()).extracting(KernelResult::id).containsExactly(ahead.id());
    assertThat(storedIds(Set.of(ahead.id(), onTime.id()))).containsExactly(onTime.id());
    String aheadMonth = "results_" + java.time.format.DateTimeFormatter.ofPattern("yyyy_MM")
        .format(ahead.measuredAt().atOffset(java.time.ZoneOffset.UTC));
    try (Connection c = DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password())) {
      assertThat(TestDatabase.first(c, "SELECT count(*) FROM pg_partition_tree('results') WHERE relid::text = '"
          + aheadMonth + "'")).as("no partition for the refused month").isEqualTo("0");
    }

    coordinator.stop().await(30, TimeUnit.SECONDS);
    coordinator = Coordinator.start(settings.withMeasuredAtWindow(new MeasuredAtWindow(Duration.ofDays(400),
        MeasuredAtWindow.DEFAULT_BEHIND))).await(60, TimeUnit.SECONDS);
    for (KernelResult kept : outbox.pending()) {
      deliver(outbox, kept).await(30, TimeUnit.SECONDS);
    }

    assertThat(outbox.pending()).isEmpty();
    assertThat(storedIds(Set.of(ahead.id(), onTime.id()))).containsExactlyInAnyOrder(ahead.id(), onTime.id());
  }

  /**
   * An agent whose clock is a year behind: its results' measuredAt (a year ago by its clock) are within the age that
   * outboxes may reach, so the result window alone would take them; its heartbeats say what its clock reads now, and
   * the refusal names that. The results stay in its outbox, and the agent is shown with its clock's offset.
   */
  @Test
  void agentOutbox_resultFromAClockAYearBehind_refusedNamingTheAgentsClockAndKeptInTheOutbox() throws Exception {
    DeviceInfo lateGpu = Fixtures.gpu("late-host", 0);
    AgentDouble late = new AgentDouble(agentVertx, Fixtures.hello("late-agent", lateGpu), Duration.ofDays(-365));
    cluster.onClose(late);
    Await.until(() -> {
      for (JsonNode a : Http.json(http.get("/api/agents"))) {
        if ("late-agent".equals(a.path("agentId").asText()) && a.path("clockOffset").isNumber()) {
          return a.path("clockOffset").asDouble() < -364 * 86_400.0;
        }
      }
      return false;
    }, Duration.ofSeconds(20), "the late agent's clock offset shown in /api/agents");
    Outbox outbox = Outbox.open(dir.resolve("late-outbox"));
    KernelResult behind = Fixtures.result(null, null, "late-agent", lateGpu, 4, true,
        Instant.now().minus(Duration.ofDays(365)));
    outbox.put(behind);

    Throwable refused = deliver(outbox, behind).transform(done -> Future.succeededFuture(done.cause()))
        .await(30, TimeUnit.SECONDS);

    assertThat(refused).isInstanceOf(Delivery.Refused.class)
        .hasMessageStartingWith("agent late-agent: its clock is 365 d behind the coordinator's (its last heartbeat);"
            + " the limit is 24 h (BUSLOAD_MAX_CLOCK_SKEW)");
    assertThat(outbox.pending()).extracting(KernelResult::id).containsExactly(behind.id());
    assertThat(storedIds(Set.of(behind.id()))).isEmpty();
  }

  /** As the agent delivers a result: until an ack names it, then its outbox file goes; a refusal keeps the file. */
  private Future<Boolean> deliver(Outbox outbox, KernelResult result) {
    Delivery delivery = new Delivery(agentVertx, new ClusterLink(agentVertx), Duration.ofSeconds(10));
    return delivery.enqueue(Addresses.RESULTS, result, result.id().toString(), true)
        .compose(acked -> agentVertx.executeBlocking(() -> outbox.remove(result.id()), false))
        .onComplete(done -> delivery.close());
  }

  @Test
  void runStatus_unknownRun_refused() throws Exception {
    RunRequest ghost = new RunRequest(1, "no-such-run", "no-such-sweep", GPU.id(), "stride", java.util.Map.of());

    Ack ack = agent.status(ghost, RunStatus.State.DONE, 0, 0);

    assertThat(ack.ok()).isFalse();
    assertThat(ack.reason()).contains("unknown run");
  }

  private String runState(String sweepId, String runId) {
    for (JsonNode run : Http.json(http.get("/api/sweeps/" + sweepId)).get("runs")) {
      if (run.get("runId").asText().equals(runId)) {
        return run.get("state").asText();
      }
    }
    throw new AssertionError("no run " + runId + " in sweep " + sweepId);
  }

  private static String created(HttpResponse<String> response) {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
    return Http.json(response).get("id").asText();
  }

  private static List<String> ids(JsonNode results) {
    List<String> ids = new ArrayList<>();
    results.forEach(r -> ids.add(r.get("id").asText()));
    return ids;
  }

  /** Straight from the database the coordinator writes to (same JVM, same PostgreSQL database). */
  private Set<UUID> storedIds(Set<UUID> wanted) throws Exception {
    try (Connection c = DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
        PreparedStatement s = c.prepareStatement("SELECT id FROM results WHERE id = ?")) {
      Set<UUID> found = new java.util.HashSet<>();
      for (UUID id : wanted) {
        s.setObject(1, id);
        try (ResultSet rs = s.executeQuery()) {
          while (rs.next()) {
            found.add(rs.getObject(1, UUID.class));
          }
        }
      }
      return found.stream().collect(Collectors.toSet());
    }
  }
}
