package io.busload.coordinator.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.coordinator.Coordinator;
import io.busload.coordinator.CoordinatorSettings;
import io.busload.coordinator.Fixtures;
import io.busload.coordinator.Http;
import io.busload.coordinator.api.LocalCoordinator;
import io.busload.coordinator.api.RestApiTestSettings;
import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.AgentHello;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.Heartbeat;
import io.busload.protocol.KernelResult;
import io.busload.protocol.Protocol;
import io.busload.protocol.RunRequest;
import io.busload.protocol.RunStatus;
import io.busload.protocol.bridge.BridgeClient;
import io.busload.protocol.bridge.BridgeJson;
import io.busload.protocol.cluster.ClusterSettings;
import io.busload.protocol.cluster.FleetTls;
import io.busload.testsupport.Await;
import io.busload.testsupport.FleetCerts;
import io.busload.testsupport.LogCapture;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An agent with a valid certificate of its own, on the bridge behind mutual TLS, tries to speak for what belongs to
 * another agent while that agent runs a sweep: claim its device in a hello, end its run, store results for its
 * device, run and sweep, and write CR/LF into the coordinator's log through its host and labels. Each attempt is
 * refused, counted on /metrics by reason, and logged once per certificate name and reason however often it is
 * repeated; the victim keeps its devices and its sweep finishes with every result stored.
 */
class AgentOwnershipTest {
  private static final String VICTIM = "own-victim";
  private static final String ATTACKER = "own-attacker";
  private static final int KERNELS = 3;
  private static final Pattern REFUSED = Pattern.compile(
      "busload_agent_refused_total\\{reason=\"([^\"]+)\"} ([0-9.E]+)");

  @TempDir static Path dir;
  private static Vertx coordinatorVertx;
  private static Coordinator coordinator;
  private static Path certs;
  private static int bridgePort;
  private static final List<Vertx> clients = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    certs = FleetCerts.issue(dir.resolve("certs"), "--coordinator", "c1@127.0.0.1", "--agent",
        VICTIM + "@127.0.0.1," + ATTACKER + "@127.0.0.1");
    CoordinatorSettings settings = RestApiTestSettings.withFleetTls(dir.resolve("data"), certs, false)
        .withBridgePort(0);
    coordinatorVertx = Vertx.vertx();
    coordinator = Coordinator.deploy(coordinatorVertx, settings).await(60, TimeUnit.SECONDS);
    bridgePort = coordinator.bridgePort();
  }

  @AfterAll
  static void stop() throws Exception {
    for (Vertx vertx : clients) {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
    LocalCoordinator.stop(coordinator, coordinatorVertx);
  }

  @Test
  void attackerWithItsOwnCertificate_everyClaimOnAnotherAgentsDevicesRunsAndLog_refusedCountedLoggedOnce()
      throws Exception {
    DeviceInfo gpu0 = Fixtures.gpu(VICTIM, 0);
    DeviceInfo gpu1 = Fixtures.gpu(VICTIM, 1);
    DeviceInfo own = Fixtures.gpu(ATTACKER, 0);
    Client victim = connected(VICTIM);
    Client attacker = connected(ATTACKER);
    Map<String, RunRequest> running = new ConcurrentHashMap<>();
    victim.vertx.runOnContext(v -> victim.bridge.register(Addresses.bridgeRuns(VICTIM), incoming -> {
      RunRequest request = BridgeJson.fromJson(incoming.body(), RunRequest.class);
      victim.bridge.reply(incoming.replyAddress(), BridgeJson.toJson(Ack.ok(request.runId())));
      victim.bridge.request(Addresses.BRIDGE_RUN_STATUS, BridgeJson.toJson(status(request, VICTIM,
          RunStatus.State.RUNNING, 0)), 20_000).onSuccess(ack -> running.put(request.deviceId(), request));
    }));
    // Heartbeats as a real agent sends them, so that the victim stays online (and its runs alive) however long the
    // attacks take on a loaded machine.
    victim.vertx.setPeriodic(1000, id -> victim.bridge.send(Addresses.BRIDGE_HEARTBEAT, BridgeJson.toJson(
        new Heartbeat(Protocol.SCHEMA_VERSION, VICTIM, Instant.now(), Stream.of(gpu0, gpu1).map(d -> {
          RunRequest run = running.get(d.id());
          return new Heartbeat.DeviceState(d.id(), run == null ? null : run.runId(), null, 0, KERNELS);
        }).toList()))));
    Thread.sleep(100);
    assertThat(victim.ack(Addresses.BRIDGE_HELLO, Fixtures.hello(VICTIM, gpu0, gpu1)).ok()).isTrue();
    assertThat(attacker.ack(Addresses.BRIDGE_HELLO, Fixtures.hello(ATTACKER, own)).ok()).isTrue();

    Http http = new Http(coordinator.httpPort());
    String sweepId = Http.json(http.post("/api/sweeps", "{\"suite\":\"stride\",\"devices\":[\"" + gpu0.id() + "\",\""
        + gpu1.id() + "\"]}")).get("id").asText();
    Await.until(() -> running.size() == 2, Duration.ofSeconds(30), "both of the victim's runs RUNNING");
    RunRequest run0 = running.get(gpu0.id());

    SoftAssertions attacks = new SoftAssertions();
    try (LogCapture log = LogCapture.of(Refusals.class)) {
      // Twice each: the second time must be counted and must not be logged again.
      for (int round = 0; round < 2; round++) {
        Ack claim = attacker.ack(Addresses.BRIDGE_HELLO, Fixtures.hello(ATTACKER, own, gpu0));
        attacks.assertThat(claim.ok()).as("hello claiming the victim's device is acked for the attacker's own").isTrue();
        attacks.assertThat(claim.reason()).as("the hello's ack names the device left out").contains(gpu0.id());
        for (RunStatus.State end : List.of(RunStatus.State.DONE, RunStatus.State.FAILED)) {
          Ack status = attacker.ack(Addresses.BRIDGE_RUN_STATUS, status(run0, ATTACKER, end, KERNELS));
          attacks.assertThat(status.ok()).as("status %s on the victim's run", end).isFalse();
        }
        Ack onDevice = attacker.ack(Addresses.BRIDGE_RESULTS,
            Fixtures.result(null, null, ATTACKER, gpu0, 1, true, Instant.now()));
        attacks.assertThat(onDevice.ok()).as("result for the victim's device").isFalse();
        Ack onRun = attacker.ack(Addresses.BRIDGE_RESULTS,
            Fixtures.result(sweepId, run0.runId(), ATTACKER, own, 1, true, Instant.now()));
        attacks.assertThat(onRun.ok()).as("result on the victim's run and sweep, for the attacker's device").isFalse();
        Ack onSweep = attacker.ack(Addresses.BRIDGE_RESULTS,
            Fixtures.result(sweepId, null, ATTACKER, own, 1, true, Instant.now()));
        attacks.assertThat(onSweep.ok()).as("result in the victim's sweep").isFalse();
        Ack crlf = attacker.ack(Addresses.BRIDGE_HELLO, new AgentHello(Protocol.SCHEMA_VERSION, ATTACKER,
            "h\r\n2026-11-27 INFO agent own-victim offline", "0.1.0", "abc", List.of(own), Instant.now()));
        attacks.assertThat(crlf.ok()).as("host with CR/LF").isFalse();
        attacks.assertThat(crlf.reason()).as("its reason").contains("host");
        Ack label = attacker.ack(Addresses.BRIDGE_HELLO, new AgentHello(Protocol.SCHEMA_VERSION, ATTACKER,
            "h", "0.1.0", "abc", List.of(own), Instant.now(), List.of("rack\u0085a")));
        attacks.assertThat(label.ok()).as("label with a C1 control").isFalse();
      }

      Map<String, Double> counted = refusedCounts(http);
      for (String reason : List.of("device_owned", "run_not_assigned", "result_device", "result_run",
          "result_sweep", "control_character")) {
        attacks.assertThat(counted.getOrDefault(reason, 0.0)).as("refusals counted as %s", reason)
            .isGreaterThanOrEqualTo(2.0);
        attacks.assertThat(log.messages().stream().filter(m -> m.contains("'" + ATTACKER + "'")
            && m.contains(reason)).count()).as("log lines for %s", reason).isEqualTo(1);
      }
      attacks.assertThat(log.messages()).as("no line carries a raw CR or LF")
          .noneMatch(m -> m.contains("\r") || m.contains("\n"));
    }

    // Nothing changed: the victim keeps both devices, its runs are still its own and running.
    JsonNode agents = Http.json(http.get("/api/agents"));
    attacks.assertThat(devicesOf(agents, VICTIM)).as("victim's devices").containsExactly(gpu0.id(), gpu1.id());
    attacks.assertThat(devicesOf(agents, ATTACKER)).as("attacker's devices").containsExactly(own.id());
    attacks.assertThat(runStates(http, sweepId)).as("victim's runs").containsOnly("RUNNING");
    attacks.assertThat(Http.json(http.get("/api/results?device=" + gpu0.id()))).as("results on the victim's device")
        .isEmpty();
    attacks.assertAll();

    // The victim finishes its sweep as if nothing happened: every result stored, both runs DONE.
    List<KernelResult> sent = new ArrayList<>();
    for (RunRequest request : List.copyOf(running.values())) {
      DeviceInfo device = request.deviceId().equals(gpu0.id()) ? gpu0 : gpu1;
      for (int k = 0; k < KERNELS; k++) {
        KernelResult result = Fixtures.result(sweepId, request.runId(), VICTIM, device, k + 1, true, Instant.now());
        Ack stored = victim.ack(Addresses.BRIDGE_RESULTS, result);
        assertThat(stored.ok()).as(stored.reason()).isTrue();
        sent.add(result);
      }
      running.remove(request.deviceId());
      assertThat(victim.ack(Addresses.BRIDGE_RUN_STATUS, status(request, VICTIM, RunStatus.State.DONE, KERNELS)).ok())
          .isTrue();
    }
    Await.until(() -> runStates(http, sweepId).equals(List.of("DONE", "DONE")), Duration.ofSeconds(30),
        "the victim's sweep is done");
    int stored = Http.json(http.get("/api/results?device=" + gpu0.id())).size()
        + Http.json(http.get("/api/results?device=" + gpu1.id())).size();
    assertThat(stored).as("results stored of the %d the victim sent (0 lost)", sent.size()).isEqualTo(sent.size());

    // The device's next run still goes to the victim, not to the agent that claimed it.
    String next = Http.json(http.post("/api/sweeps", "{\"suite\":\"stride\",\"devices\":[\"" + gpu0.id() + "\"]}"))
        .get("id").asText();
    Await.until(() -> running.containsKey(gpu0.id()), Duration.ofSeconds(30), "the next run on the device reached the"
        + " victim");
    RunRequest again = running.get(gpu0.id());
    assertThat(again.sweepId()).isEqualTo(next);
    assertThat(victim.ack(Addresses.BRIDGE_RESULTS, Fixtures.result(next, again.runId(), VICTIM, gpu0, 1, true,
        Instant.now())).ok()).isTrue();
    running.remove(gpu0.id());
    assertThat(victim.ack(Addresses.BRIDGE_RUN_STATUS, status(again, VICTIM, RunStatus.State.DONE, KERNELS)).ok())
        .isTrue();
    Await.until(() -> runStates(http, next).equals(List.of("DONE")), Duration.ofSeconds(30), "the next run is done");
  }

  // ---- helpers

  private static RunStatus status(RunRequest run, String agentId, RunStatus.State state, int completed) {
    return new RunStatus(Protocol.SCHEMA_VERSION, run.runId(), run.sweepId(), agentId, run.deviceId(), state,
        completed, KERNELS, null, Instant.now());
  }

  private static Map<String, Double> refusedCounts(Http http) {
    Map<String, Double> counts = new java.util.HashMap<>();
    Matcher m = REFUSED.matcher(http.get("/metrics").body());
    while (m.find()) {
      counts.merge(m.group(1), Double.parseDouble(m.group(2)), Double::sum);
    }
    return counts;
  }

  private static List<String> devicesOf(JsonNode agents, String agentId) {
    for (JsonNode agent : agents) {
      if (agentId.equals(agent.get("agentId").asText())) {
        return agent.get("devices").findValuesAsText("id");
      }
    }
    return List.of();
  }

  private static List<String> runStates(Http http, String sweepId) {
    return Http.json(http.get("/api/sweeps/" + sweepId)).get("runs").findValuesAsText("state");
  }

  private record Client(Vertx vertx, BridgeClient bridge) {
    Ack ack(String address, Object record) throws Exception {
      CompletableFuture<JsonObject> reply = new CompletableFuture<>();
      vertx.runOnContext(v -> bridge.request(address, BridgeJson.toJson(record), 20_000)
          .onSuccess(reply::complete).onFailure(reply::completeExceptionally));
      return BridgeJson.fromJson(reply.get(30, TimeUnit.SECONDS), Ack.class);
    }
  }

  /** A protocol-level agent with its own certificate from {@code ./busload certs}, connected to the bridge. */
  private static Client connected(String agent) throws Exception {
    Vertx vertx = Vertx.vertx();
    clients.add(vertx);
    FleetTls.Loaded tls = FleetTls.inDirectory(certs.resolve("agent-" + agent)).load(ClusterSettings.AGENT);
    BridgeClient client = new BridgeClient(vertx, List.of(new BridgeClient.Endpoint("127.0.0.1", bridgePort)),
        tls.applyBridgeClient(new WebSocketClientOptions()), Duration.ofSeconds(2));
    vertx.runOnContext(v -> client.start());
    Await.until(client::connected, Duration.ofSeconds(20), agent + " connected to the bridge");
    return new Client(vertx, client);
  }
}
