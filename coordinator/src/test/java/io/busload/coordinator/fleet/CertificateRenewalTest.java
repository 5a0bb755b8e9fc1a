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
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.KernelResult;
import io.busload.protocol.RunRequest;
import io.busload.protocol.bridge.BridgeClient;
import io.busload.protocol.bridge.BridgeJson;
import io.busload.protocol.cluster.ClusterSettings;
import io.busload.protocol.cluster.FleetTls;
import io.busload.protocol.pki.CertsCommand;
import io.busload.testsupport.Await;
import io.busload.testsupport.FleetCerts;
import io.busload.testsupport.MemberTls;
import io.busload.testsupport.LogCapture;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Certificates renewed under a running coordinator and a connected agent on the bridge ({@code ./busload certs renew}
 * writing over the member directories): the coordinator takes the new ones for new handshakes within seconds, the
 * connected agent is not dropped, its results keep being acknowledged and stored (none lost), and nothing restarts.
 */
class CertificateRenewalTest {
  @TempDir Path dir;
  private final List<Vertx> vertxes = new CopyOnWriteArrayList<>();
  private Coordinator coordinator;

  @AfterEach
  void stop() throws Exception {
    LocalCoordinator.stop(coordinator, vertxes.toArray(Vertx[]::new));
  }

  @Test
  void renewUnderRunningFleet_newHandshakesGetNewCertificates_agentKeepsItsConnection_zeroLost() throws Exception {
    Path certs = FleetCerts.issue(dir.resolve("certs"), "--coordinator", "c1@127.0.0.1", "--agent", "renew-a1",
        "--days", "5");
    CoordinatorSettings settings = RestApiTestSettings.withFleetTls(dir.resolve("data"), certs, false)
        .withBridgePort(0);
    Vertx coordinatorVertx = vertx();
    coordinator = Coordinator.deploy(coordinatorVertx, settings).await(60, TimeUnit.SECONDS);
    int bridgePort = coordinator.bridgePort();
    Http http = new Http(coordinator.httpPort());
    X509Certificate servedBefore = MemberTls.served(certs.resolve("agent-renew-a1"), "127.0.0.1", bridgePort);

    try (LogCapture connects = LogCapture.of(BridgeClient.class)) {
      Vertx agentVertx = vertx();
      FleetTls.Loaded agentTls = FleetTls.inDirectory(certs.resolve("agent-renew-a1")).load(ClusterSettings.AGENT);
      BridgeClient agent = new BridgeClient(agentVertx, List.of(new BridgeClient.Endpoint("127.0.0.1", bridgePort)),
          agentTls.applyBridgeClient(new WebSocketClientOptions()), Duration.ofSeconds(2));
      agentVertx.runOnContext(v -> agent.start());
      Await.until(agent::connected, Duration.ofSeconds(30), "the agent connected to the bridge");
      DeviceInfo gpu = Fixtures.gpu("renew-a1", 0);
      List<RunRequest> runs = new CopyOnWriteArrayList<>();
      agentVertx.runOnContext(v -> agent.register(Addresses.bridgeRuns("renew-a1"),
          incoming -> {
            runs.add(BridgeJson.fromJson(incoming.body(), RunRequest.class));
            agent.reply(incoming.replyAddress(),
                BridgeJson.toJson(Ack.ok(BridgeJson.fromJson(incoming.body(), RunRequest.class).runId())));
          }));
      assertThat(ack(agentVertx, agent, Addresses.BRIDGE_HELLO, BridgeJson.toJson(Fixtures.hello("renew-a1", gpu)))
          .ok()).isTrue();
      String sweepId = Http.json(http.post("/api/sweeps", "{\"suite\":\"stride\",\"devices\":[\"" + gpu.id()
          + "\"]}")).get("id").asText();
      Await.until(() -> !runs.isEmpty(), Duration.ofSeconds(30), "the run request reached the agent");
      String runId = runs.getFirst().runId();

      int sent = 0;
      for (; sent < 5; sent++) {
        KernelResult result = Fixtures.result(sweepId, runId, "renew-a1", gpu, sent + 1, true, Instant.now());
        assertThat(ack(agentVertx, agent, Addresses.BRIDGE_RESULTS, BridgeJson.toJson(result)).ok()).isTrue();
      }

      int renewed = CertsCommand.commandLine().execute("renew", "--out", certs.toString(), "--ca-password-file",
          dir.resolve("certs-ca-password").toString(), "--days", "60");
      assertThat(renewed).isZero();
      Instant renewedAt = Instant.now();
      // Results keep flowing on the open connection while the coordinator notices the new files.
      while (MemberTls.served(certs.resolve("agent-renew-a1"), "127.0.0.1", bridgePort).getNotAfter().toInstant()
          .isBefore(Instant.now().plus(Duration.ofDays(30)))) {
        assertThat(Duration.between(renewedAt, Instant.now())).as("the bridge took the renewed certificate")
            .isLessThan(Duration.ofSeconds(60));
        KernelResult result = Fixtures.result(sweepId, runId, "renew-a1", gpu, sent + 1, true, Instant.now());
        assertThat(ack(agentVertx, agent, Addresses.BRIDGE_RESULTS, BridgeJson.toJson(result)).ok()).isTrue();
        sent++;
        Thread.sleep(500);
      }
      X509Certificate servedAfter = MemberTls.served(certs.resolve("agent-renew-a1"), "127.0.0.1", bridgePort);
      for (int i = 0; i < 5; i++, sent++) {
        KernelResult result = Fixtures.result(sweepId, runId, "renew-a1", gpu, sent + 1, true, Instant.now());
        assertThat(ack(agentVertx, agent, Addresses.BRIDGE_RESULTS, BridgeJson.toJson(result)).ok()).isTrue();
      }

      assertThat(servedAfter.getSerialNumber()).isNotEqualTo(servedBefore.getSerialNumber());
      assertThat(servedAfter.getSubjectX500Principal()).isEqualTo(servedBefore.getSubjectX500Principal());
      assertThat(agent.connected()).isTrue();
      assertThat(connects.messages().stream().filter(m -> m.startsWith("connected to the bridge")))
          .as("the agent's connection was never dropped").hasSize(1);
      JsonNode stored = Http.json(http.get("/api/results?device=" + gpu.id()));
      assertThat(stored).as("results stored of " + sent + " sent").hasSize(sent);
      String metrics = http.get("/metrics").body();
      double expirySeconds = metrics.lines().filter(l -> l.startsWith("busload_tls_expiry_seconds "))
          .mapToDouble(l -> Double.parseDouble(l.substring(l.indexOf(' ') + 1))).findFirst().orElseThrow();
      assertThat(expirySeconds).as("the gauge follows the renewed certificate")
          .isGreaterThan(Duration.ofDays(59).toSeconds());
    }
  }

  private Vertx vertx() {
    Vertx vertx = Vertx.vertx();
    vertxes.add(vertx);
    return vertx;
  }

  private static Ack ack(Vertx vertx, BridgeClient client, String address, JsonObject body) throws Exception {
    CompletableFuture<JsonObject> reply = new CompletableFuture<>();
    vertx.runOnContext(v -> client.request(address, body, 20_000)
        .onSuccess(reply::complete).onFailure(reply::completeExceptionally));
    return BridgeJson.fromJson(reply.get(30, TimeUnit.SECONDS), Ack.class);
  }
}
