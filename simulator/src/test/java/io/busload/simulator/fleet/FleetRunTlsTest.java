package io.busload.simulator.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.agent.cluster.BridgeLink;
import io.busload.agent.cluster.BridgeSettings;
import io.busload.coordinator.Coordinator;
import io.busload.coordinator.CoordinatorSettings;
import io.busload.coordinator.store.DatabaseSettings;
import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.AgentHello;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.Protocol;
import io.busload.protocol.bridge.BridgeClient;
import io.busload.protocol.cluster.ClusterSettings;
import io.busload.protocol.cluster.FleetTls;
import io.busload.testsupport.Await;
import io.busload.testsupport.Ports;
import io.vertx.core.Context;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocketClientOptions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code simulate fleet --transport bridge} with mutual TLS, as real agents connect: a real coordinator
 * process (embedded PostgreSQL) with the fleet certificate the simulator issued, and virtual agents each with a
 * certificate of its own. Kept small (a few agents, seconds of steady) so that it runs with the build. A hello under
 * another agent's certificate is refused by a coordinator in the test's own JVM, with the certificates the simulator
 * issued.
 */
class FleetRunTlsTest {
  @TempDir Path dir;

  @Test
  void bridgeWithTls_fewAgents_onlineAndEveryResultStoredOnce() throws Exception {
    FleetRun.Options options = new FleetRun.Options(3, 2, Duration.ofSeconds(3), "offset", Map.of("offset", "0"),
        Duration.ofMillis(100), Duration.ofMillis(2_000), 0.34, "256m", Ports.free(), Ports.free(), dir.resolve("run"),
        FleetRun.Transport.BRIDGE, FleetRun.Security.MUTUAL_TLS);
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    FleetRun.Figures figures;
    try (FleetRun run = new FleetRun(options, new PrintStream(log, true, StandardCharsets.UTF_8))) {
      figures = run.run();
    }
    String said = log.toString(StandardCharsets.UTF_8);

    assertThat(figures.certificates()).as(said).isNotNull();
    assertThat(figures.certificates().agentCertificates()).isEqualTo(3);
    assertThat(figures.certificates().seconds()).isPositive();
    assertThat(figures.online().devices()).as(said).isEqualTo(6);
    assertThat(figures.online().coordinatorCpuSeconds()).isPositive();
    // offset=0: two kernel cases a run, every run measured whole.
    assertThat(figures.sweep().resultsMade()).as(said).isEqualTo(12);
    // The dropped agent's runs were interrupted after their first case; what it had measured came back with it.
    assertThat(figures.drop().sweep().resultsMade()).as(said).isGreaterThanOrEqualTo(8);
    assertThat(figures.drop().resentFromOutbox()).isPositive();
    for (FleetFigures.Sweep sweep : List.of(figures.sweep(), figures.drop().sweep())) {
      assertThat(sweep.runsTaken()).as(said).isEqualTo(6);
      assertThat(sweep.resultsStored()).as(said).isEqualTo(sweep.resultsMade());
      assertThat(sweep.lost()).isZero();
      assertThat(sweep.duplicated()).isZero();
    }
    assertThat(figures.drop().droppedAgents()).isEqualTo(1);
    assertThat(figures.drop().secondsBackOnline()).as(said).isFinite();
    // The coordinator served the bridge with mutual TLS, and the agents' connections went through it.
    assertThat(Files.readString(dir.resolve("run/coordinator.log"))).contains("agent bridge (mutual TLS) on wss://");

    ByteArrayOutputStream report = new ByteArrayOutputStream();
    new FleetReport("test", Instant.now().toString(), options, figures)
        .print(new PrintStream(report, true, StandardCharsets.UTF_8));
    assertThat(report.toString(StandardCharsets.UTF_8)).contains("with mutual TLS")
        .contains("Bridge security: MUTUAL_TLS; fleet CA " + figures.certificates().fleetId());
  }

  @Test
  void anotherAgentsCertificate_helloRefusedNamingTheCertificate_nothingListed() throws Exception {
    Path run = dir.resolve("refused");
    Files.createDirectories(run);
    FleetRun.IssuedFleet fleet = FleetRun.issue(2, run.resolve("tls"));
    // The bridge's check of an agent's name against its certificate, with the certificates the simulator issued, in
    // a coordinator in this JVM: the coordinator process the simulator starts is the other test's.
    ClusterSettings cluster = new ClusterSettings("busload-sim-refused-" + UUID.randomUUID(), "127.0.0.1", null,
        Ports.free(), 0, List.of("127.0.0.1"), ClusterSettings.COORDINATOR)
        .withTls(FleetTls.inDirectory(fleet.coordinatorDir()));
    Vertx coordinatorVertx = Vertx.vertx();
    Vertx vertx = Vertx.vertx();
    Coordinator coordinator = null;
    try {
      // Its first API token goes to a file, as the process's does: nothing needs it, and the log need not show it.
      Path data = run.resolve("coordinator-data");
      coordinator = Coordinator.deploy(coordinatorVertx, new CoordinatorSettings(data, "127.0.0.1", 0, cluster,
          DatabaseSettings.EMBEDDED, data.resolve(CoordinatorSettings.API_TOKENS_FILE_NAME), run.resolve("api-token"))
          .withBridgePort(0)).await(180, TimeUnit.SECONDS);
      // sim-0000 connects with sim-0001's certificate and key.
      BridgeLink link = new BridgeLink(new BridgeClient(vertx,
          List.of(new BridgeClient.Endpoint("127.0.0.1", coordinator.bridgePort())),
          new WebSocketClientOptions(fleet.agents().get("sim-0001")), BridgeSettings.PING));
      // The client lives on one context, as in an agent.
      Context context = vertx.getOrCreateContext();
      context.runOnContext(v -> link.start());
      Await.until(link::coordinatorPresent, Duration.ofSeconds(60), "the bridge connection is open");

      AgentHello hello = new AgentHello(Protocol.SCHEMA_VERSION, "sim-0000", "sim-0000.sim", "simulated",
          "simulated", List.of(), Instant.now(), List.of("simulated"));
      Promise<Ack> answered = Promise.promise();
      context.runOnContext(v -> link.request(Addresses.AGENT_HELLO, hello, 10_000).onComplete(answered));
      Ack ack = answered.future().await(30, TimeUnit.SECONDS);

      assertThat(ack.ok()).isFalse();
      assertThat(ack.reason()).contains("agentId 'sim-0000'").contains("certificate name 'sim-0001'");
      HttpResponse<String> agents = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + coordinator.httpPort() + "/api/agents")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(agents.statusCode()).as(agents.body()).isEqualTo(200);
      List<String> listed = new ArrayList<>();
      for (JsonNode agent : JsonCodec.MAPPER.readTree(agents.body())) {
        listed.add(agent.path("agentId").asText());
      }
      assertThat(listed).doesNotContain("sim-0000");
    } finally {
      vertx.close().await(30, TimeUnit.SECONDS);
      if (coordinator != null) {
        coordinator.stop().await(30, TimeUnit.SECONDS);
      }
      coordinatorVertx.close().await(30, TimeUnit.SECONDS);
    }
  }
}
