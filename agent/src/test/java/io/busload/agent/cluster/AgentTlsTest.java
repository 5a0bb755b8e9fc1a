package io.busload.agent.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import io.busload.agent.cpu.CpuDevice;
import io.busload.agent.cpu.ShortCpuCases;
import io.busload.kernels.Fatbin;
import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.AgentHello;
import io.busload.protocol.Codecs;
import io.busload.protocol.KernelResult;
import io.busload.protocol.Protocol;
import io.busload.protocol.RunRequest;
import io.busload.protocol.RunStatus;
import io.busload.protocol.cluster.ClusterSettings;
import io.busload.protocol.cluster.FleetTls;
import io.busload.protocol.compat.vertx.VertxInternals;
import io.busload.testsupport.Await;
import io.busload.testsupport.FleetCerts;
import io.busload.testsupport.LogCapture;
import io.busload.testsupport.LoopbackCluster;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.eventbus.EventBusOptions;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.spi.cluster.RegistrationInfo;
import io.vertx.spi.cluster.hazelcast.ConfigUtil;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The event bus's security from the agent's side: the real verticle, its outbox and its delivery, on a real cluster on
 * loopback with a member that acks every result it gets. An outbox file may go only when the coordinator acked.
 */
@ExtendWith(ShortCpuCases.class)
class AgentTlsTest {
  private static final Path WORK = Path.of("target", "agent-tls");
  private static Path fleet;
  private static Path otherFleet;
  @AutoClose private final LoopbackCluster cluster = new LoopbackCluster("busload-agent-tls");

  @TempDir Path outbox;

  @BeforeAll
  static void issueCertificates() throws Exception {
    Files.createDirectories(WORK);
    Path dir = Files.createTempDirectory(WORK, "run-");
    fleet = FleetCerts.issue(dir.resolve("fleet"), "--coordinator", "c1@127.0.0.1", "--agent", "a1@127.0.0.1");
    otherFleet = FleetCerts.issue(dir.resolve("other"), "--coordinator", "x1@127.0.0.1");
  }

  @Test
  void tls_strangerAcksEveryResult_runAckedByCoordinatorOnlyAndOutboxDrained() throws Exception {
    Vertx coordinator = cluster.join(tls(ClusterSettings.COORDINATOR, fleet.resolve("coordinator-c1")));
    Map<UUID, Integer> stored = new ConcurrentHashMap<>();
    Set<String> done = ConcurrentHashMap.newKeySet();
    playCoordinator(coordinator, stored, done);
    // Another fleet's coordinator: it claims the role and acks every result that reaches it.
    Vertx stranger = cluster.join(tls(ClusterSettings.COORDINATOR, otherFleet.resolve("coordinator-x1")));
    Set<UUID> stolen = ConcurrentHashMap.newKeySet();
    stranger.eventBus().<KernelResult>consumer(Addresses.RESULTS, m -> {
      stolen.add(m.body().id());
      m.reply(Ack.ok(m.body().id().toString()));
    }).completion().await(10, TimeUnit.SECONDS);
    Vertx agent = cluster.join(tls(ClusterSettings.AGENT, fleet.resolve("agent-a1")));
    awaitRegistrations(agent, Addresses.RESULTS, 2);
    String agentId = "tls-agent-" + UUID.randomUUID();
    try (LogCapture log = LogCapture.of(Delivery.class)) {
      // Every result is routed to the stranger once, and only the request timeout ends each of those sends, one after
      // another: 1 s here instead of the standard 10 s keeps the test to seconds and changes nothing else (a late ack
      // is resent; what reaches the stranger is counted when it arrives, whatever the timeout).
      agent.deployVerticle(new AgentVerticle(config(agentId).withRequestTimeout(Duration.ofSeconds(1))))
          .await(30, TimeUnit.SECONDS);
      long start = System.nanoTime();
      RunRequest run = new RunRequest(Protocol.SCHEMA_VERSION, "run-" + UUID.randomUUID(), "sweep-tls",
          "tls-host/cpu", "stride", Map.of("elements", "4096"));
      Ack accepted = coordinator.eventBus().<Ack>request(Addresses.agentRuns(agentId), run)
          .await(30, TimeUnit.SECONDS).body();
      assertThat(accepted.ok()).as(String.valueOf(accepted.reason())).isTrue();
      // Vert.x fails a request fast only for a ReplyException: a send routed to the stranger, whose TLS handshake
      // fails, waits out the agent's request timeout before it is resent.
      Await.until(() -> done.contains(run.runId()) && OutboxFiles.in(outbox).isEmpty(), Duration.ofSeconds(400),
          "run done at the coordinator and the outbox empty");
      long delayed = log.messages().stream()
          .filter(m -> m.startsWith(Addresses.RESULTS) && m.contains("not delivered")).count();

      assertThat(stolen).as("results the stranger read").isEmpty();
      assertThat(stored).hasSize(9);
      assertThat(OutboxFiles.in(outbox)).isEmpty();
      assertThat(delayed).as("sends routed to the stranger (it was in the rotation)").isPositive();
      System.out.printf("agent over TLS beside another fleet's coordinator: 9 results measured, %d stored by the "
          + "coordinator (%d sends arrived), %d read by the stranger, %d sends routed to it and resent, %d left in "
          + "the outbox, %.0f s from run request to empty outbox%n", stored.size(),
          stored.values().stream().mapToInt(Integer::intValue).sum(), stolen.size(), delayed,
          OutboxFiles.in(outbox).size(),
          (System.nanoTime() - start) / 1e9);
    }
  }

  @Test
  void noCoordinatorRoleMember_resultsHeldAndLogged_sentOnceACoordinatorJoins() throws Exception {
    // A data member that does not claim the coordinator role (another tool, a wrong cluster name): it would ack.
    Vertx stranger = start(strangerDataMember(cluster.name(), cluster.port()));
    Set<UUID> stolen = ConcurrentHashMap.newKeySet();
    MessageConsumer<KernelResult> trap = stranger.eventBus().<KernelResult>consumer(Addresses.RESULTS, m -> {
      stolen.add(m.body().id());
      m.reply(Ack.ok(m.body().id().toString()));
    });
    trap.completion().await(10, TimeUnit.SECONDS);
    Vertx agent = cluster.join(ClusterSettings.AGENT);
    awaitRegistrations(agent, Addresses.RESULTS, 1);
    List<KernelResult> waiting = List.of(result(), result(), result());
    Outbox box = Outbox.open(outbox);
    waiting.forEach(box::put);
    try (LogCapture log = LogCapture.of(Delivery.class)) {
      agent.deployVerticle(new AgentVerticle(config("held-agent-" + UUID.randomUUID()))).await(30, TimeUnit.SECONDS);
      Thread.sleep(5000);

      assertThat(stolen).as("results sent to a cluster without a coordinator").isEmpty();
      assertThat(OutboxFiles.in(outbox)).hasSize(3);
      assertThat(log.messages()).anySatisfy(m -> assertThat(m)
          .contains("held: no member of this cluster has the coordinator role"));

      // Plain TCP (loopback) authenticates nobody: the stranger leaves the address before the coordinator comes.
      trap.unregister().await(10, TimeUnit.SECONDS);
      Vertx coordinator = cluster.join(ClusterSettings.COORDINATOR);
      Map<UUID, Integer> stored = new ConcurrentHashMap<>();
      playCoordinator(coordinator, stored, ConcurrentHashMap.newKeySet());
      Await.until(() -> OutboxFiles.in(outbox).isEmpty(), Duration.ofSeconds(60),
          "outbox drained once a coordinator joined");

      assertThat(stored.keySet()).isEqualTo(waiting.stream().map(KernelResult::id).collect(Collectors.toSet()));
      assertThat(stolen).isEmpty();
      System.out.printf("no coordinator-role member: 3 results held for 5 s (0 sent), then %d acked by the "
          + "coordinator that joined, %d left%n", stored.size(), OutboxFiles.in(outbox).size());
    }
  }

  // --- helpers

  private Vertx start(Config hazelcast) throws Exception {
    Vertx vertx = Vertx.builder()
        .with(new VertxOptions().setEventBusOptions(new EventBusOptions().setHost("127.0.0.1")))
        .withClusterManager(new HazelcastClusterManager(hazelcast))
        .buildClustered().map(Codecs::register).await(LoopbackCluster.JOIN_SECONDS, TimeUnit.SECONDS);
    cluster.onClose(() -> vertx.close().await(LoopbackCluster.CLOSE_SECONDS, TimeUnit.SECONDS));
    return vertx;
  }

  /** Busload's Hazelcast network settings by hand, a data member whose role says "stranger". */
  private static Config strangerDataMember(String name, int port) {
    Config config = ConfigUtil.loadConfig();
    config.setClusterName(name);
    config.setLiteMember(false);
    config.getMemberAttributeConfig().setAttribute(ClusterSettings.ROLE_ATTRIBUTE, "stranger");
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.setProperty("hazelcast.logging.type", "slf4j");
    config.setProperty("hazelcast.socket.bind.any", "false");
    config.setProperty("hazelcast.wait.seconds.before.join", "0");
    NetworkConfig network = config.getNetworkConfig();
    network.setPort(port).setPortAutoIncrement(true).setPortCount(20);
    network.getInterfaces().setEnabled(true).clear().addInterface("127.0.0.1");
    JoinConfig join = network.getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    join.getTcpIpConfig().setEnabled(true).setMembers(List.of("127.0.0.1"));
    return config;
  }

  private ClusterSettings tls(String role, Path member) {
    return cluster.settings(role).withTls(FleetTls.inDirectory(member));
  }

  /** The coordinator's consumers as Intake answers them: hello, heartbeat, status (DONE noted), results stored. */
  private static void playCoordinator(Vertx coordinator, Map<UUID, Integer> stored, Set<String> done)
      throws Exception {
    coordinator.eventBus().<AgentHello>consumer(Addresses.AGENT_HELLO, m -> m.reply(Ack.ok(m.body().agentId())))
        .completion().await(10, TimeUnit.SECONDS);
    coordinator.eventBus().consumer(Addresses.AGENT_HEARTBEAT, m -> { }).completion().await(10, TimeUnit.SECONDS);
    coordinator.eventBus().<RunStatus>consumer(Addresses.RUN_STATUS, m -> {
      if (m.body().state() == RunStatus.State.DONE) {
        done.add(m.body().runId());
      }
      m.reply(Ack.ok(m.body().runId()));
    }).completion().await(10, TimeUnit.SECONDS);
    coordinator.eventBus().<KernelResult>consumer(Addresses.RESULTS, m -> {
      stored.merge(m.body().id(), 1, Integer::sum);
      m.reply(Ack.ok(m.body().id().toString()));
    }).completion().await(10, TimeUnit.SECONDS);
  }

  private AgentConfig config(String agentId) {
    return new AgentConfig(agentId, "tls-host", "test", Fatbin.sha256(), List.of(CpuDevice.create("tls-host")),
        outbox, Duration.ofMillis(500), Duration.ofSeconds(30), Duration.ofMillis(500));
  }

  private static KernelResult result() {
    return KernelResult.builder().id(UUID.randomUUID()).agentId("held-agent").agentVersion("test")
        .fatbinHash("hash").device(CpuDevice.create("tls-host").info()).suite("stride").kernel("stride_copy_fp32")
        .params(Map.of("stride", 2, "elements", 1024)).valid(true).mismatches(List.of()).medianSeconds(1e-4)
        .minSeconds(1e-4).maxSeconds(1e-4).relativeSpread(0).samples(List.of(1e-4)).launchesPerSample(1)
        .warmupLaunches(1).bytesRead(4096).bytesWritten(4096).bytes(8192).bandwidth(8192 / 1e-4).method("test")
        .measuredAt(Instant.now()).build();
  }

  private static void awaitRegistrations(Vertx vertx, String address, int nodes) throws Exception {
    Await.until(() -> {
      Promise<List<RegistrationInfo>> promise = Promise.promise();
      VertxInternals.clusterManager(vertx).orElseThrow().getRegistrations(address, promise);
      try {
        return promise.future().await(10, TimeUnit.SECONDS).stream().map(RegistrationInfo::nodeId).distinct()
            .count() == nodes;
      } catch (Exception e) {
        return false;
      }
    }, Duration.ofSeconds(30), nodes + " member(s) with consumers on " + address);
  }
}
