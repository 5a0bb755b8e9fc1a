package io.busload.coordinator.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.coordinator.Coordinator;
import io.busload.coordinator.CoordinatorSettings;
import io.busload.coordinator.Fixtures;
import io.busload.coordinator.Http;
import io.busload.coordinator.api.LocalCoordinator;
import io.busload.coordinator.api.RestApiTestSettings;
import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.KernelResult;
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
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PfxOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Agents that are not cluster members reach the coordinator through its event-bus bridge, behind mutual
 * TLS with the fleet's real certificates ({@code ./busload certs}). An agent's hello, run, status and result go
 * through and are stored; what a connection may do is decided by its certificate: no certificate gets no
 * handshake, a dashboard's certificate gets no connection, and an agent can neither speak for another agent, nor
 * take another agent's runs, nor read or write any address but its own and the intake's.
 */
class AgentBridgeTest {
  @TempDir static Path dir;
  private static Vertx coordinatorVertx;
  private static Coordinator coordinator;
  private static Path certs;
  private static int bridgePort;
  private final List<Vertx> clients = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    certs = FleetCerts.issue(dir.resolve("certs"), "--coordinator", "c1@127.0.0.1", "--agent",
        "bridge-a1@127.0.0.1,bridge-a2@127.0.0.1", "--dashboard", "d1@127.0.0.1");
    CoordinatorSettings settings = RestApiTestSettings.withFleetTls(dir.resolve("data"), certs, false)
        .withBridgePort(0);
    coordinatorVertx = Vertx.vertx();
    coordinator = Coordinator.deploy(coordinatorVertx, settings).await(60, TimeUnit.SECONDS);
    bridgePort = coordinator.bridgePort();
    assertThat(bridgePort).isPositive();
  }

  @AfterAll
  static void stop() throws Exception {
    LocalCoordinator.stop(coordinator, coordinatorVertx);
  }

  @AfterEach
  void closeClients() throws Exception {
    for (Vertx vertx : clients) {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void agentCertificate_helloRunStatusAndResult_goThroughAndAreStored() throws Exception {
    DeviceInfo gpu = Fixtures.gpu("bridge-a1", 0);
    BridgeClient agent = connected("agent-bridge-a1", ClusterSettings.AGENT);
    List<BridgeClient.Incoming> runs = new CopyOnWriteArrayList<>();
    onContext(agent, () -> agent.register(Addresses.bridgeRuns("bridge-a1"), runs::add));

    Ack hello = ack(agent, Addresses.BRIDGE_HELLO, BridgeJson.toJson(Fixtures.hello("bridge-a1", gpu)));
    assertThat(hello.ok()).as(hello.reason()).isTrue();
    Http http = new Http(coordinator.httpPort());
    assertThat(Http.json(http.get("/api/agents")).findValuesAsText("agentId")).contains("bridge-a1");

    JsonNode sweep = Http.json(http.post("/api/sweeps", "{\"suite\":\"stride\",\"devices\":[\"" + gpu.id() + "\"]}"));
    String sweepId = sweep.get("id").asText();
    Await.until(() -> !runs.isEmpty(), Duration.ofSeconds(30), "the run request reached the agent through the bridge");
    BridgeClient.Incoming incoming = runs.getFirst();
    RunRequest request = BridgeJson.fromJson(incoming.body(), RunRequest.class);
    assertThat(request.sweepId()).isEqualTo(sweepId);
    assertThat(request.deviceId()).isEqualTo(gpu.id());
    assertThat(incoming.replyAddress()).isNotNull();
    onContext(agent, () -> agent.reply(incoming.replyAddress(), BridgeJson.toJson(Ack.ok(request.runId()))));
    Await.until(() -> "RUNNING".equals(runState(http, sweepId)), Duration.ofSeconds(30),
        "the coordinator recorded the agent's ack");

    KernelResult result = Fixtures.result(sweepId, request.runId(), "bridge-a1", gpu, 1, true, Instant.now());
    Ack stored = ack(agent, Addresses.BRIDGE_RESULTS, BridgeJson.toJson(result));
    assertThat(stored.ok()).as(stored.reason()).isTrue();
    assertThat(stored.id()).isEqualTo(result.id().toString());
    RunStatus done = Fixtures.status(request.runId(), sweepId, "bridge-a1", gpu.id(), RunStatus.State.DONE, 1, 1);
    assertThat(ack(agent, Addresses.BRIDGE_RUN_STATUS, BridgeJson.toJson(done)).ok()).isTrue();

    JsonNode results = Http.json(http.get("/api/results?device=" + gpu.id()));
    assertThat(results).hasSize(1);
    assertThat(results.get(0).get("id").asText()).isEqualTo(result.id().toString());
    Await.until(() -> "DONE".equals(runState(http, sweepId)), Duration.ofSeconds(30), "the run is done");
  }

  @Test
  void agentSpeakingForAnotherAgent_refusedNamingItsCertificate_andNothingStored() throws Exception {
    DeviceInfo gpu = Fixtures.gpu("bridge-a2", 0);
    BridgeClient impostor = connected("agent-bridge-a1", ClusterSettings.AGENT);

    Ack hello = ack(impostor, Addresses.BRIDGE_HELLO, BridgeJson.toJson(Fixtures.hello("bridge-a2", gpu)));
    assertThat(hello.ok()).isFalse();
    assertThat(hello.reason()).contains("'bridge-a2'").contains("certificate name 'bridge-a1'");
    KernelResult forged = Fixtures.result(null, null, "bridge-a2", gpu, 1, true, Instant.now());
    Ack result = ack(impostor, Addresses.BRIDGE_RESULTS, BridgeJson.toJson(forged));
    assertThat(result.ok()).isFalse();
    assertThat(result.reason()).contains("certificate name 'bridge-a1'");
    // A header saying otherwise is the connection's own writing: replaced by the bridge, not believed.
    JsonObject withHeader = BridgeJson.toJson(Fixtures.hello("bridge-a2", gpu));
    Ack headed = BridgeJson.fromJson(requestWithHeader(impostor, withHeader), Ack.class);
    assertThat(headed.ok()).isFalse();

    Http http = new Http(coordinator.httpPort());
    assertThat(Http.json(http.get("/api/agents")).findValuesAsText("agentId")).doesNotContain("bridge-a2");
    assertThat(Http.json(http.get("/api/results?device=" + gpu.id()))).isEmpty();
  }

  @Test
  void agentCertificate_anotherAgentsRunsOrAnyOtherAddress_refused() throws Exception {
    BridgeClient agent = connected("agent-bridge-a1", ClusterSettings.AGENT);
    List<String> errors = new CopyOnWriteArrayList<>();
    onContext(agent, () -> agent.errorHandler(errors::add));

    frame(agent, new JsonObject().put("type", "register").put("address", Addresses.bridgeRuns("bridge-a2")));
    frame(agent, new JsonObject().put("type", "register").put("address", Addresses.agentRuns("bridge-a2")));
    frame(agent, new JsonObject().put("type", "register").put("address", Addresses.LIVE_RESULTS));
    frame(agent, new JsonObject().put("type", "send").put("address", Addresses.RESULTS).put("body", new JsonObject()));
    frame(agent, new JsonObject().put("type", "publish").put("address", Addresses.BRIDGE_HEARTBEAT)
        .put("body", new JsonObject()));
    Await.until(() -> errors.size() >= 5, Duration.ofSeconds(10), "five refusals");
    // "rejected": refused by the bridge's check of the connection's certificate; "access_denied": by its address list.
    assertThat(errors).containsExactlyInAnyOrder("rejected", "rejected", "rejected", "access_denied", "rejected");
  }

  @Test
  void noClientCertificate_failsTheHandshake() throws Exception {
    Vertx vertx = client();
    FleetTls.Loaded agentTls = FleetTls.inDirectory(certs.resolve("agent-bridge-a1")).load(ClusterSettings.AGENT);
    // The agent's trust store (it trusts the coordinator CA) but no key: a stranger that knows the server.
    WebSocketConnectOptions target = new WebSocketConnectOptions().setHost("127.0.0.1").setPort(bridgePort)
        .setURI(BridgeClient.PATH).setSsl(true);
    // The control: the same options with the agent's key connect, so the key is what the failure below is about.
    WebSocketClient withKey = vertx.createWebSocketClient(agentTls.applyBridgeClient(new WebSocketClientOptions()));
    withKey.connect(target).await(10, TimeUnit.SECONDS).close().await(10, TimeUnit.SECONDS);
    withKey.close();
    WebSocketClientOptions options = agentTls.applyBridgeClient(new WebSocketClientOptions());
    options.setKeyCertOptions(null);
    // Held in a variable to the end: Vert.x closes a client that is no longer reachable, and that close would fail
    // the connect for a reason that is not the one under test.
    WebSocketClient socketClient = vertx.createWebSocketClient(options);
    Throwable failure = catchThrowable(() -> socketClient.connect(target).await(10, TimeUnit.SECONDS));
    socketClient.close();
    assertThat(failure).as("the connect without a client certificate").isNotNull();
  }

  @Test
  void dashboardCertificate_connectionClosedByTheBridge() throws Exception {
    Vertx vertx = client();
    FleetTls dashboard = FleetTls.inDirectory(certs.resolve("dashboard-d1"));
    String password = Files.readString(dashboard.passwordFile()).strip();
    WebSocketClientOptions options = new WebSocketClientOptions().setSsl(true).setVerifyHost(true)
        .setKeyCertOptions(new PfxOptions().setValue(Buffer.buffer(Files.readAllBytes(dashboard.keyStore())))
            .setPassword(password))
        .setTrustOptions(new PfxOptions().setValue(Buffer.buffer(Files.readAllBytes(dashboard.trustStore())))
            .setPassword(password));
    AtomicBoolean closed = new AtomicBoolean();
    List<String> frames = new CopyOnWriteArrayList<>();
    // Held in a variable to the end: Vert.x closes a client that is no longer reachable, and that close fails the
    // connect as "Connection closed" with no word from the bridge (it did, in CI).
    WebSocketClient socketClient = vertx.createWebSocketClient(options);
    try (LogCapture refusals = LogCapture.of(AgentBridge.class)) {
      // Handlers go on in the connect callback, on the socket's own event loop: the bridge may close the connection
      // as soon as it is open, before a test thread that awaited the socket could attach them. It may close it even
      // before the client has finished its side of the handshake, and then the connect itself fails as closed: both
      // are the bridge's refusal, which its log must name.
      socketClient.connect(new WebSocketConnectOptions().setHost("127.0.0.1")
          .setPort(bridgePort).setURI(BridgeClient.PATH).setSsl(true)).onComplete(opened -> {
            if (opened.failed()) {
              if (String.valueOf(opened.cause().getMessage()).toLowerCase(java.util.Locale.ROOT).contains("closed")) {
                closed.set(true);
              }
              return;
            }
            var socket = opened.result();
            socket.closeHandler(v -> closed.set(true));
            socket.textMessageHandler(frames::add);
            if (socket.isClosed()) {
              closed.set(true);
              return;
            }
            socket.writeTextMessage(new JsonObject().put("type", "send").put("address", Addresses.BRIDGE_HELLO)
                .put("body", BridgeJson.toJson(Fixtures.hello("d1", Fixtures.gpu("d1", 0)))).put("replyAddress",
                    "00000000-0000-0000-0000-000000000001").encode());
          });
      Await.until(closed::get, Duration.ofSeconds(10), "the bridge closed the dashboard's connection");
      Await.until(() -> refusals.messages().stream().anyMatch(m -> m.contains("refused") && m.contains("'dashboard'")),
          Duration.ofSeconds(10), "the bridge logged why it refused the dashboard's certificate");
    } finally {
      socketClient.close();
    }
    assertThat(frames).noneMatch(f -> f.contains("\"rec\""));
  }

  /**
   * Through the bridge as on the bus: a result's id names one measurement. The same record again is acked; the same
   * id under another measuredAt is refused naming the id, and a measuredAt a year ahead is refused naming the skew.
   */
  @Test
  void agentCertificate_sameIdAnotherTimeOrAYearAhead_refusedNamingTheIdOrTheSkew() throws Exception {
    // No hello: the other tests need bridge-a2 to be no fleet agent; results are taken from a certificate's agent.
    DeviceInfo gpu = Fixtures.gpu("bridge-a2", 7);
    BridgeClient agent = connected("agent-bridge-a2", ClusterSettings.AGENT);
    KernelResult result = Fixtures.result(null, null, "bridge-a2", gpu, 3, true, Instant.now());
    KernelResult moved = Fixtures.withMeasuredAt(result,
        result.measuredAt().minus(Duration.ofDays(40)));
    KernelResult ahead = Fixtures.result(null, null, "bridge-a2", gpu, 5, true,
        Instant.now().plus(Duration.ofDays(366)));

    Ack first = ack(agent, Addresses.BRIDGE_RESULTS, BridgeJson.toJson(result));
    Ack again = ack(agent, Addresses.BRIDGE_RESULTS, BridgeJson.toJson(result));
    Ack other = ack(agent, Addresses.BRIDGE_RESULTS, BridgeJson.toJson(moved));
    Ack skewed = ack(agent, Addresses.BRIDGE_RESULTS, BridgeJson.toJson(ahead));

    assertThat(first.ok()).as(first.reason()).isTrue();
    assertThat(again.ok()).as(again.reason()).isTrue();
    assertThat(other.ok()).isFalse();
    assertThat(other.reason()).isEqualTo("id: result " + result.id()
        + " is stored already with other contents (measuredAt differs)");
    assertThat(skewed.ok()).isFalse();
    assertThat(skewed.reason()).contains("is 365 d ahead of the coordinator's clock; the limit is 24 h");
    JsonNode stored = Http.json(new Http(coordinator.httpPort()).get("/api/results?device=" + gpu.id()));
    assertThat(stored).hasSize(1);
    assertThat(stored.get(0).get("measuredAt").asText()).isEqualTo(result.measuredAt().toString());
  }

  // ---- helpers

  private Vertx client() {
    Vertx vertx = Vertx.vertx();
    clients.add(vertx);
    return vertx;
  }

  /** A bridge client with the member's certificate from {@code ./busload certs}, connected. */
  private BridgeClient connected(String member, String role) throws Exception {
    Vertx vertx = client();
    FleetTls.Loaded tls = FleetTls.inDirectory(certs.resolve(member)).load(role);
    BridgeClient client = new BridgeClient(vertx, List.of(new BridgeClient.Endpoint("127.0.0.1", bridgePort)),
        tls.applyBridgeClient(new WebSocketClientOptions()), Duration.ofSeconds(2));
    VERTX_OF.put(client, vertx);
    vertx.runOnContext(v -> client.start());
    Await.until(client::connected, Duration.ofSeconds(20), member + " connected to the bridge");
    return client;
  }

  /** Clients are used on one context; tests run their calls on it. */
  private static void onContext(BridgeClient client, Runnable action) throws Exception {
    clientVertx(client).runOnContext(v -> action.run());
    Thread.sleep(50);
  }

  private static final java.util.Map<BridgeClient, Vertx> VERTX_OF = new java.util.concurrent.ConcurrentHashMap<>();

  private static Vertx clientVertx(BridgeClient client) {
    return VERTX_OF.get(client);
  }

  private static Ack ack(BridgeClient client, String address, JsonObject body) throws Exception {
    java.util.concurrent.CompletableFuture<JsonObject> reply = new java.util.concurrent.CompletableFuture<>();
    clientVertx(client).runOnContext(v -> client.request(address, body, 20_000)
        .onSuccess(reply::complete).onFailure(reply::completeExceptionally));
    return BridgeJson.fromJson(reply.get(30, TimeUnit.SECONDS), Ack.class);
  }

  /** A request whose frame carries a forged identity header. */
  private static JsonObject requestWithHeader(BridgeClient client, JsonObject body) throws Exception {
    java.util.concurrent.CompletableFuture<JsonObject> reply = new java.util.concurrent.CompletableFuture<>();
    clientVertx(client).runOnContext(v -> client.request(Addresses.BRIDGE_HELLO, body,
            new JsonObject().put(AgentBridge.IDENTITY_HEADER, "bridge-a2"), 20_000)
        .onSuccess(reply::complete).onFailure(reply::completeExceptionally));
    return reply.get(30, TimeUnit.SECONDS);
  }

  private static void frame(BridgeClient client, JsonObject frame) throws Exception {
    onContext(client, () -> client.sendFrame(frame));
  }

  private static String runState(Http http, String sweepId) {
    JsonNode runs = Http.json(http.get("/api/sweeps/" + sweepId)).get("runs");
    return runs == null || runs.isEmpty() ? null : runs.get(0).get("state").asText();
  }
}
