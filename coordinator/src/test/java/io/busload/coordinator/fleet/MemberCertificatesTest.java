package io.busload.coordinator.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.coordinator.Coordinator;
import io.busload.coordinator.CoordinatorSettings;
import io.busload.coordinator.Http;
import io.busload.coordinator.TestDatabase;
import io.busload.coordinator.api.CertificateResource;
import io.busload.protocol.Addresses;
import io.busload.protocol.MemberCertificates;
import io.busload.protocol.Protocol;
import io.busload.protocol.cluster.ClusterSettings;
import io.busload.protocol.cluster.FleetTls;
import io.busload.testsupport.Await;
import io.busload.testsupport.FleetCerts;
import io.busload.testsupport.LogCapture;
import io.busload.testsupport.LoopbackCluster;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A dashboard on the cluster path, over TLS, whose certificate (issued by the project's PKI for 10 days) is near its
 * expiry: it says so when it joins, and the clustered coordinator (one without a bridge: every member on the cluster
 * path) warns of it and lists it on {@code GET /api/certificates} as it does a bridge agent's. A word outside the
 * bounds is dropped with a WARN.
 */
class MemberCertificatesTest {
  @TempDir Path dir;

  @Test
  void dashboardOnTheClusterPath_certificateTenDaysFromExpiry_warnedAndListedByTheCoordinator() throws Exception {
    Path certs = FleetCerts.issue(dir.resolve("certs"), "--coordinator", "c1@127.0.0.1", "--days", "400");
    FleetCerts.issue(certs, "--dashboard", "exp-d1", "--days", "10");
    try (LoopbackCluster cluster = new LoopbackCluster("busload-member-certs")) {
      Path data = Http.tokensIn(dir.resolve("data"));
      CoordinatorSettings settings = new CoordinatorSettings(data, "127.0.0.1", 0,
          cluster.settings(ClusterSettings.COORDINATOR).withTls(FleetTls.inDirectory(certs.resolve("coordinator-c1"))),
          TestDatabase.fresh(), data.resolve(CoordinatorSettings.API_TOKENS_FILE_NAME), null, false);
      Coordinator coordinator = Coordinator.start(settings).await(120, TimeUnit.SECONDS);
      cluster.onClose(() -> coordinator.stop().await(30, TimeUnit.SECONDS));
      Http http = new Http(coordinator.httpPort());
      assertThat(Http.json(http.get(CertificateResource.PATH)).get("nearExpiry")).as("the coordinator's own: 400 days")
          .isEmpty();

      try (LogCapture log = LogCapture.of(CertificateExpiry.class);
          LogCapture dropped = LogCapture.of(MemberCertificatesWatch.class)) {
        Vertx dashboard = cluster.join(cluster.settings(ClusterSettings.DASHBOARD)
            .withTls(FleetTls.inDirectory(certs.resolve("dashboard-exp-d1"))));
        Await.until(() -> Http.json(http.get(CertificateResource.PATH)).get("nearExpiry").size() > 0,
            Duration.ofSeconds(30), "the coordinator lists the dashboard's certificate");

        JsonNode listed = Http.json(http.get(CertificateResource.PATH)).get("nearExpiry");
        assertThat(listed).singleElement().satisfies(c -> {
          assertThat(c.get("role").asText()).isEqualTo("dashboard");
          assertThat(c.get("subject").asText()).contains("exp-d1");
          assertThat(c.get("daysLeft").asLong()).isBetween(9L, 10L);
        });
        Await.until(() -> log.messages().stream().anyMatch(m -> m.contains("exp-d1")), Duration.ofSeconds(10),
            "a WARN naming the dashboard's certificate");
        assertThat(log.messages()).filteredOn(m -> m.contains("exp-d1")).singleElement().asString()
            .contains("(dashboard)").contains("./busload certs renew");

        dashboard.eventBus().publish(Addresses.MEMBER_CERTIFICATES, new MemberCertificates(Protocol.SCHEMA_VERSION,
            "dashboard", "127.0.0.1", List.of(new MemberCertificates.Certificate("dashboard", "CN=forged", "zz",
                Instant.now().plus(Duration.ofDays(2)))), Instant.now()));
        Await.until(() -> dropped.messages().stream().anyMatch(m -> m.contains("certificates[0].serial")),
            Duration.ofSeconds(10), "the word out of bounds dropped with a WARN naming the field");
        assertThat(Http.json(http.get(CertificateResource.PATH)).get("nearExpiry")).hasSize(1);
      }
    }
  }
}
