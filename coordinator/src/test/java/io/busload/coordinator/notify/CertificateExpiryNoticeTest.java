package io.busload.coordinator.notify;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.coordinator.Coordinator;
import io.busload.coordinator.CoordinatorSettings;
import io.busload.coordinator.Http;
import io.busload.coordinator.api.CertificateResource;
import io.busload.coordinator.api.LocalCoordinator;
import io.busload.coordinator.api.RestApiTestSettings;
import io.busload.coordinator.fleet.CertificateExpiry;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.bridge.BridgeClient;
import io.busload.protocol.cluster.ClusterSettings;
import io.busload.protocol.cluster.FleetTls;
import io.busload.protocol.pki.CertsCommand;
import io.busload.testsupport.Await;
import io.busload.testsupport.FleetCerts;
import io.busload.testsupport.LogCapture;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocketClientOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A certificate near its expiry, end to end: an agent whose certificate (issued by the project's PKI for 10 days)
 * connects to a real coordinator's bridge over mutual TLS; the coordinator logs one WARN naming it, sends one notice
 * to a real HTTP receiver, and lists it on {@code GET /api/certificates} for the dashboard. Told again (the
 * coordinator's own certificate renewed under it makes it look at every expiry once more), nothing is sent twice.
 */
class CertificateExpiryNoticeTest {
  private static final String HMAC_KEY = "k3y-0f-the-receiver-9fz2LqW8";

  @TempDir Path dir;
  private Vertx coordinatorVertx;
  private Vertx agentVertx;
  private Coordinator coordinator;

  @AfterEach
  void stop() throws Exception {
    LocalCoordinator.stop(coordinator, agentVertx, coordinatorVertx);
  }

  @Test
  void bridgeAgent_certificateTenDaysFromExpiry_oneWarnOneNoticeAndListed() throws Exception {
    Path certs = FleetCerts.issue(dir.resolve("certs"), "--coordinator", "c1@127.0.0.1", "--days", "400");
    FleetCerts.issue(certs, "--agent", "exp-a1", "--days", "10");
    CoordinatorSettings settings = RestApiTestSettings.withFleetTls(dir.resolve("data"), certs, false)
        .withBridgePort(0);
    coordinatorVertx = Vertx.vertx();
    coordinator = Coordinator.deploy(coordinatorVertx, settings).await(60, TimeUnit.SECONDS);
    Http http = new Http(coordinator.httpPort());
    assertThat(Http.json(http.get(CertificateResource.PATH)).get("nearExpiry")).as("the coordinator's own: 400 days")
        .isEmpty();

    try (Receiver receiver = new Receiver(200); LogCapture log = LogCapture.of(CertificateExpiry.class)) {
      var created = http.post("/api/notifications/targets", "{\"name\":\"certs\",\"kind\":\"webhook\",\"secrets\":"
          + "{\"url\":\"" + receiver.url("/hook") + "\",\"key\":\"" + HMAC_KEY + "\"},\"filter\":{\"events\":"
          + "[\"certificate-expiry\"]}}");
      assertThat(created.statusCode()).as(created.body()).isEqualTo(201);

      agentVertx = Vertx.vertx();
      FleetTls.Loaded agentTls = FleetTls.inDirectory(certs.resolve("agent-exp-a1")).load(ClusterSettings.AGENT);
      BridgeClient agent = new BridgeClient(agentVertx, List.of(new BridgeClient.Endpoint("127.0.0.1",
          coordinator.bridgePort())), agentTls.applyBridgeClient(new WebSocketClientOptions()), Duration.ofSeconds(2));
      agentVertx.runOnContext(v -> agent.start());
      Await.until(agent::connected, Duration.ofSeconds(30), "the agent connected to the bridge");
      Await.until(() -> !receiver.to("/hook").isEmpty(), Duration.ofSeconds(30), "the notice reached the receiver");

      // Told again: renewing the coordinator's own certificate makes it look at every expiry once more.
      int renewed = CertsCommand.commandLine().execute("renew", "--out", certs.toString(), "--ca-password-file",
          dir.resolve("certs-ca-password").toString(), "--days", "400", "coordinator-c1");
      assertThat(renewed).isZero();
      Instant renewedAt = Instant.now();
      Await.until(() -> renewedAt.isBefore(Instant.now().minusSeconds(12)), Duration.ofSeconds(30),
          "the coordinator's certificate watch (every 5 s) saw the renewal and the deliveries ran");

      assertThat(receiver.to("/hook")).as("one notice per certificate and expiry").hasSize(1);
      JsonNode notice = JsonCodec.MAPPER.readTree(receiver.to("/hook").getFirst().body());
      assertThat(notice.get("kind").asText()).isEqualTo("CERTIFICATE_EXPIRY");
      assertThat(notice.get("title").asText()).contains("exp-a1").contains("(agent)").containsPattern("expires in (9|10) day");
      assertThat(notice.get("text").asText()).contains("./busload certs renew");
      assertThat(notice.get("details").get("role").asText()).isEqualTo("agent");
      assertThat(log.messages()).as("one WARN per certificate per day")
          .filteredOn(m -> m.contains("exp-a1")).singleElement().asString()
          .contains("(agent)").containsPattern("\\((9|10) days from now\\)").contains("./busload certs renew");

      JsonNode listed = Http.json(http.get(CertificateResource.PATH));
      assertThat(listed.get("warnDays").asInt()).isEqualTo(30);
      assertThat(listed.get("nearExpiry")).singleElement().satisfies(c -> {
        assertThat(c.get("role").asText()).isEqualTo("agent");
        assertThat(c.get("subject").asText()).contains("exp-a1");
        assertThat(c.get("daysLeft").asLong()).isBetween(9L, 10L);
        assertThat(Instant.parse(c.get("notAfter").asText())).isBetween(Instant.now().plus(Duration.ofDays(9)),
            Instant.now().plus(Duration.ofDays(11)));
      });
    }
  }
}
