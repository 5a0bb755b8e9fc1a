package io.busload.coordinator.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.agent.cluster.AgentConfig;
import io.busload.agent.cluster.AgentVerticle;
import io.busload.agent.cpu.CpuDevice;
import io.busload.coordinator.Coordinator;
import io.busload.coordinator.CoordinatorSettings;
import io.busload.coordinator.Http;
import io.busload.coordinator.TestDatabase;
import io.busload.coordinator.api.CertificateResource;
import io.busload.kernels.Fatbin;
import io.busload.protocol.Addresses;
import io.busload.protocol.KernelResult;
import io.busload.protocol.cluster.ClusterSettings;
import io.busload.protocol.cluster.FleetTls;
import io.busload.protocol.compat.vertx.VertxInternals;
import io.busload.protocol.pki.CertsCommand;
import io.busload.testsupport.Await;
import io.busload.testsupport.FleetCerts;
import io.busload.testsupport.LoopbackCluster;
import io.busload.testsupport.MemberTls;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.spi.cluster.ClusterManager;
import io.vertx.core.spi.cluster.NodeInfo;
import java.math.BigInteger;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Certificates renewed under a running fleet on the cluster path ({@code ./busload certs renew} writing over the
 * member directories of a coordinator without a bridge, a cluster-path agent measuring on its CPU, and a dashboard
 * member) during a CPU sweep: within seconds every member's event bus presents its renewed certificate to new
 * handshakes, the members report the renewed certificates so the coordinator's expiry warnings end, a member that
 * joins afterwards with the renewed files hears the fleet, the sweep finishes with every result stored, and no member
 * left or restarted.
 */
class ClusterCertificateRenewalTest {
  private static final String HOST = "renew-host";

  @TempDir Path dir;

  @Test
  void renewUnderClusterPathFleet_eventBusesServeRenewedCertificates_newMemberJoins_sweepZeroLost()
      throws Exception {
    Path certs = FleetCerts.issue(dir.resolve("certs"), "--coordinator", "c1@127.0.0.1", "--agent", "renew-a1",
        "--dashboard", "renew-d1", "--dashboard", "renew-d2", "--days", "5");
    Map<String, Path> members = Map.of(ClusterSettings.COORDINATOR, certs.resolve("coordinator-c1"),
        ClusterSettings.AGENT, certs.resolve("agent-renew-a1"), ClusterSettings.DASHBOARD,
        certs.resolve("dashboard-renew-d1"));
    try (LoopbackCluster cluster = new LoopbackCluster("busload-cluster-renewal")) {
      Path data = Http.tokensIn(dir.resolve("data"));
      CoordinatorSettings settings = new CoordinatorSettings(data, "127.0.0.1", 0,
          tls(cluster, ClusterSettings.COORDINATOR, members.get(ClusterSettings.COORDINATOR)), TestDatabase.fresh(),
          data.resolve(CoordinatorSettings.API_TOKENS_FILE_NAME), null, false);
      Coordinator coordinator = Coordinator.start(settings).await(120, TimeUnit.SECONDS);
      cluster.onClose(() -> coordinator.stop().await(30, TimeUnit.SECONDS));
      Http http = new Http(coordinator.httpPort());
      cluster.join(tls(cluster, ClusterSettings.DASHBOARD, members.get(ClusterSettings.DASHBOARD)));
      Vertx agent = cluster.join(tls(cluster, ClusterSettings.AGENT, members.get(ClusterSettings.AGENT)));
      AgentVerticle agentVerticle = new AgentVerticle(new AgentConfig("renew-a1", HOST, "test", Fatbin.sha256(),
          List.of(CpuDevice.create(HOST)), dir.resolve("outbox"), Duration.ofMillis(500), Duration.ofSeconds(30),
          Duration.ofMillis(500)));
      agent.deployVerticle(agentVerticle).await(60, TimeUnit.SECONDS);
      String device = CpuDevice.create(HOST).info().id();
      Await.until(() -> Http.json(http.get("/api/agents")).findValues("online").stream()
          .anyMatch(JsonNode::asBoolean), Duration.ofSeconds(60), "the agent online at the coordinator");
      Set<String> nodesBefore = Set.copyOf(manager(coordinator.vertx()).getNodes());
      // Every certificate lasts 5 days: the coordinator warns of its own and of those the members say they run on.
      Await.until(() -> nearExpiry(http).size() == 3, Duration.ofSeconds(30),
          "the coordinator's, the agent's and the dashboard's certificates listed near expiry");
      assertThat(nearExpiry(http)).anySatisfy(s -> assertThat(s).contains("CN=renew-a1"))
          .anySatisfy(s -> assertThat(s).contains("CN=renew-d1")).anySatisfy(s -> assertThat(s).contains("CN=c1"));
      Map<Integer, BigInteger> servedBefore = servedByEveryMember(agent, members.get(ClusterSettings.COORDINATOR));

      String sweep = sweep(http, device, "4194304");
      int renewed = CertsCommand.commandLine().execute("renew", "--out", certs.toString(), "--ca-password-file",
          dir.resolve("certs-ca-password").toString(), "--days", "60");
      assertThat(renewed).isZero();
      assertThat(Http.json(http.get("/api/sweeps/" + sweep)).get("state").asText()).as("the sweep, at renewal")
          .isIn("QUEUED", "RUNNING");
      Set<BigInteger> renewedSerials = new HashSet<>();
      for (Map.Entry<String, Path> member : members.entrySet()) {
        renewedSerials.add(FleetTls.inDirectory(member.getValue()).load(member.getKey()).certificate()
            .getSerialNumber());
      }
      Instant renewedAt = Instant.now();
      Map<Integer, BigInteger> servedAfter = servedBefore;
      while (!Set.copyOf(servedAfter.values()).equals(renewedSerials)) {
        assertThat(Duration.between(renewedAt, Instant.now()))
            .as("every member's event bus took its renewed certificate; serving %s, renewed %s", servedAfter.values(),
                renewedSerials)
            .isLessThan(Duration.ofSeconds(60));
        Thread.sleep(500);
        servedAfter = servedByEveryMember(agent, members.get(ClusterSettings.COORDINATOR));
      }
      Duration took = Duration.between(renewedAt, Instant.now());
      // The members say at once which certificates they run on now, so the 60-day ones end the warnings.
      Await.until(() -> nearExpiry(http).isEmpty(), Duration.ofSeconds(30), "no certificate near expiry");

      // A dashboard that joins now, with its renewed files, hears the coordinator's live results.
      Vertx newcomer = cluster.join(tls(cluster, ClusterSettings.DASHBOARD, certs.resolve("dashboard-renew-d2")));
      Set<UUID> heard = ConcurrentHashMap.newKeySet();
      newcomer.eventBus().<KernelResult>consumer(Addresses.LIVE_RESULTS, m -> heard.add(m.body().id()))
          .completion().await(10, TimeUnit.SECONDS);
      JsonNode first = awaitDone(http, sweep);
      String second = sweep(http, device, "4096");
      JsonNode after = awaitDone(http, second);
      JsonNode secondResults = Http.json(http.get("/api/results?sweepId=" + second));
      Await.until(() -> heard.size() >= secondResults.size(), Duration.ofSeconds(30),
          "the new member heard the second sweep's live results");

      assertThat(servedAfter).as("the same event-bus ports, each serving its member's renewed certificate")
          .containsOnlyKeys(servedBefore.keySet());
      for (JsonNode done : List.of(first, after)) {
        assertThat(done.get("state").asText()).isEqualTo("DONE");
        assertThat(done.get("completed").asInt()).isEqualTo(done.get("total").asInt()).isPositive();
      }
      assertThat(Http.json(http.get("/api/results?sweepId=" + sweep))).as("results stored of the first sweep")
          .hasSize(first.get("total").asInt());
      assertThat(secondResults).hasSize(after.get("total").asInt());
      assertThat(agentVerticle.outbox().pending()).as("results the coordinator never acked").isEmpty();
      assertThat(manager(coordinator.vertx()).getNodes()).as("no member left or rejoined")
          .containsAll(nodesBefore).hasSize(nodesBefore.size() + 1);
      System.out.printf("certificates renewed under a cluster-path fleet: %d members' event buses served the "
          + "renewed certificate %.1f s after renewal; sweeps of %d and %d results, all stored%n",
          servedAfter.size(), took.toMillis() / 1e3,
          first.get("total").asInt(), after.get("total").asInt());
    }
  }

  /** The subjects of the certificates {@code GET /api/certificates} lists near expiry. */
  private static List<String> nearExpiry(Http http) {
    List<String> subjects = new ArrayList<>();
    Http.json(http.get(CertificateResource.PATH)).get("nearExpiry").forEach(c -> subjects.add(c.get("subject")
        .asText()));
    return subjects;
  }

  private static ClusterSettings tls(LoopbackCluster cluster, String role, Path member) {
    return cluster.settings(role).withTls(FleetTls.inDirectory(member));
  }

  private static String sweep(Http http, String device, String elements) throws Exception {
    return Http.json(http.post("/api/sweeps", "{\"suite\":\"stride\",\"devices\":[\"" + device
        + "\"],\"options\":{\"elements\":\"" + elements + "\"}}")).get("id").asText();
  }

  private static JsonNode awaitDone(Http http, String sweep) throws Exception {
    Await.until(() -> Set.of("DONE", "FAILED").contains(Http.json(http.get("/api/sweeps/" + sweep)).get("state")
        .asText()), Duration.ofSeconds(180), "sweep " + sweep + " finished");
    return Http.json(http.get("/api/sweeps/" + sweep));
  }

  private static ClusterManager manager(Vertx vertx) {
    return VertxInternals.clusterManager(vertx).orElseThrow();
  }

  /**
   * Event-bus port of every member of {@code vertx}'s cluster, with the serial of the certificate that a new TLS
   * handshake to it gets (made with {@code prober}'s files: a coordinator's trusts the fleet root, so every member).
   */
  private static Map<Integer, BigInteger> servedByEveryMember(Vertx vertx, Path prober) throws Exception {
    ClusterManager manager = manager(vertx);
    Map<Integer, BigInteger> served = new HashMap<>();
    for (String node : new ArrayList<>(manager.getNodes())) {
      Promise<NodeInfo> info = Promise.promise();
      manager.getNodeInfo(node, info);
      NodeInfo member = info.future().await(10, TimeUnit.SECONDS);
      served.put(member.port(), MemberTls.served(prober, member.host(), member.port()).getSerialNumber());
    }
    return served;
  }

}
