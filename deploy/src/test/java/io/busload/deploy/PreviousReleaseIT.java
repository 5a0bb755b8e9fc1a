package io.busload.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.coordinator.api.RestApi;
import io.busload.protocol.Ack;
import io.busload.protocol.AgentHello;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.Protocol;
import io.busload.protocol.bridge.BridgeClient;
import io.busload.protocol.bridge.BridgeJson;
import io.busload.protocol.cluster.FleetTls;
import io.busload.testsupport.FleetCerts;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The upgrade promise of docs/upgrading.md on real processes: a coordinator from this tree's bundle serves the agent
 * of the previous release (previous-release.properties, built from its commit), which reaches it over the bridge
 * with mutual TLS under certificates from this tree's {@code ./busload certs} and measures a sweep to DONE with
 * nothing lost; an agent of the next release, whose hello speaks a newer wire schema, is refused naming both
 * releases, counted and logged, nothing of it stored, while the coordinator serves on.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PreviousReleaseIT {
  // Short: the embedded PostgreSQL's socket lies below it, and a Unix socket's path holds at most 107 bytes.
  static final Path WORK = Path.of("target", "upgrade");
  static final String NEXT = "next-release-agent";
  LocalFleet fleet;
  Path dir;
  Path certs;
  PreviousRelease previous;

  @BeforeAll
  void start() throws Exception {
    long building = System.nanoTime();
    previous = PreviousRelease.agent();
    System.out.printf("previous release %s (%s): agent ready in %.1f s%n", previous.commit(), previous.version(),
        (System.nanoTime() - building) / 1e9);
    Files.createDirectories(WORK);
    dir = Files.createTempDirectory(WORK, "fleet-");
    fleet = new LocalFleet(dir);
    certs = FleetCerts.issue(dir.resolve("certs"), "--coordinator", "c1@127.0.0.1", "--agent",
        fleet.agentId + "@127.0.0.1", "--agent", NEXT + "@127.0.0.1");
    fleet.startCoordinator("coordinator", fleet.data, fleet.coordinatorPort, List.of(),
        Map.of("BUSLOAD_TLS_DIR", certs.resolve("coordinator-c1").toString()));
    fleet.startJava("previous-agent", List.of("-cp", previous.classpath(), "io.busload.agent.Main", "agent",
        "--device", "cpu"), Map.of("BUSLOAD_AGENT_ID", fleet.agentId, "BUSLOAD_OUTBOX",
        dir.resolve("outbox").toString(), "BUSLOAD_TLS_DIR", certs.resolve("agent-" + fleet.agentId).toString()));
  }

  @AfterAll
  void stop() throws Exception {
    if (fleet != null) {
      fleet.close();
    }
  }

  @Test
  void previousReleaseAgent_overTheBridgeWithMutualTls_sweepDoneNothingLost() throws Exception {
    String deviceId = await("the previous release's agent online", 180,
        () -> LocalFleet.onlineCpuDevice(fleet.json("/api/agents"), fleet.agentId));
    String sweepId = fleet.strideSweep(deviceId);
    JsonNode sweep = await("sweep done", 240, () -> fleet.sweepIfDone(sweepId));
    JsonNode results = fleet.json("/api/results?sweepId=" + sweepId);
    List<String> left;
    try (Stream<Path> files = Files.list(dir.resolve("outbox"))) {
      left = files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".json")).toList();
    }

    assertThat(results.size()).as("results stored of the sweep's total").isEqualTo(sweep.path("total").asInt())
        .isPositive();
    results.forEach(r -> assertThat(r.path("valid").asBoolean()).as(r.toString()).isTrue());
    results.forEach(r -> assertThat(r.path("agentId").asText()).isEqualTo(fleet.agentId));
    assertThat(left).as("results the previous release's agent still holds unacked").isEmpty();
    String agentLog = fleet.log("previous-agent");
    assertThat(agentLog).contains("connected to the bridge at 127.0.0.1:" + fleet.bridgePort)
        .contains("coordinator acknowledged agent " + fleet.agentId).doesNotContain(" refused (");
    assertThat(agentLog.lines().filter(l -> l.contains("hello not acknowledged yet (")
        && !l.contains("not connected to a coordinator's bridge"))).as("hellos the coordinator refused").isEmpty();
    assertThat(dir.resolve("outbox").resolve("corrupt")).satisfiesAnyOf(p -> assertThat(p).doesNotExist(),
        p -> assertThat(p).isEmptyDirectory());
    System.out.printf("previous release %s's agent on this tree's coordinator (bridge, mutual TLS): sweep %s DONE, "
        + "%d of %d results stored, all valid, 0 left in its outbox%n", previous.commit().substring(0, 7), sweepId,
        results.size(), sweep.path("total").asInt());
  }

  @Test
  void nextReleaseAgent_helloOfANewerSchema_refusedNamingBothReleasesCountedAndCoordinatorServesOn() throws Exception {
    JsonNode version = await("the coordinator answering", 180,
        () -> fleet.json("/api/version"));
    Vertx vertx = Vertx.vertx();
    try {
      FleetTls.Loaded tls = FleetTls.inDirectory(certs.resolve("agent-" + NEXT)).load("agent");
      BridgeClient client = new BridgeClient(vertx, List.of(new BridgeClient.Endpoint("127.0.0.1", fleet.bridgePort)),
          tls.applyBridgeClient(new WebSocketClientOptions()), Duration.ofSeconds(5));
      Promise<Void> connected = Promise.promise();
      client.connectionHandler(up -> {
        if (up) {
          connected.tryComplete();
        }
      }).start();
      connected.future().await(60, TimeUnit.SECONDS);
      // The hello the next release would send: a newer schema, and a field this release has never heard of.
      JsonObject hello = BridgeJson.toJson(new AgentHello(Protocol.SCHEMA_VERSION + 1, NEXT, "next.example", "9.0.0",
          "fatbin-next", List.of(new DeviceInfo(NEXT + "/cpu", DeviceInfo.CPU, "Next CPU (CPU)", null, null, 4, 0, 8L << 30, 0,
          0, 0, "Linux 6.1")),
          Instant.now(), List.of())).put("fieldOfTheNextRelease", "x");
      Ack ack = BridgeJson.fromJson(client.request("busload.bridge.hello", hello, 20_000).await(30, TimeUnit.SECONDS),
          Ack.class);

      assertThat(ack.ok()).isFalse();
      assertThat(ack.reason()).contains("schema version " + (Protocol.SCHEMA_VERSION + 1) + " is newer than "
          + Protocol.SCHEMA_VERSION, "agent release 9.0.0", "this coordinator (release "
          + version.path("coordinatorVersion").asText() + ")", "upgrade the coordinators before their agents");
      await("the refusal logged", 30, () -> fleet.log("coordinator").contains(
          "on busload.agent.hello (schema), latest: schema version " + (Protocol.SCHEMA_VERSION + 1)) ? true : null);
      assertThat(fleet.get(fleet.coordinatorUrl() + "/metrics", "text/plain").body()).contains(
          "busload_messages_refused_total{address=\"busload.agent.hello\",reason=\"schema\"} 1.0");
      List<String> agents = new ArrayList<>();
      fleet.json("/api/agents")
          .forEach(a -> agents.add(a.path("agentId").asText()));
      assertThat(agents).doesNotContain(NEXT);
      HttpResponse<String> health = fleet.get(fleet.coordinatorUrl() + "/health", "application/json");
      assertThat(health.statusCode()).isEqualTo(200);
      assertThat(fleet.exited()).as("processes that exited").isEmpty();
      assertThat(version.path("schemaVersion").asInt()).isEqualTo(Protocol.SCHEMA_VERSION);
      assertThat(fleet.get(fleet.coordinatorUrl() + "/api/agents", "application/json").headers()
          .firstValue(RestApi.VERSION_HEADER)).contains(String.valueOf(RestApi.VERSION));
      System.out.printf("next release's hello (schema %d) refused: %s%n", Protocol.SCHEMA_VERSION + 1, ack.reason());
      client.close().await(10, TimeUnit.SECONDS);
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }


  private <T> T await(String what, int seconds, Callable<T> probe) throws Exception {
    return Poll.onFleet(fleet, Exception.class, List.of("coordinator", "previous-agent")).until(what, seconds, probe);
  }
}
