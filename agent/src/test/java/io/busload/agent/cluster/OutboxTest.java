package io.busload.agent.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.agent.cpu.CpuDevice;
import io.busload.agent.cpu.ShortCpuCases;
import io.busload.kernels.Fatbin;
import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import io.busload.protocol.Protocol;
import io.busload.protocol.RunRequest;
import io.busload.protocol.RunStatus;
import io.busload.protocol.cluster.ClusterSettings;
import io.busload.testsupport.Await;
import io.busload.testsupport.LogCapture;
import io.busload.testsupport.LoopbackCluster;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import java.nio.charset.StandardCharsets;
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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's disk outbox over a real clustered event bus on loopback: this test plays the
 * coordinator's consumers (a Hazelcast data member with a unique cluster name); the agent is the real
 * verticle serving its CPU device.
 */
@ExtendWith(ShortCpuCases.class)
class OutboxTest {
  @AutoClose private static final LoopbackCluster CLUSTER = new LoopbackCluster("busload-outbox-test");
  private static Vertx coordinator;
  private static Vertx agentVertx;
  /** How the coordinator side answers results: null = it holds them unanswered (as if it never committed). */
  private static volatile String refusal;
  private static volatile boolean acking;
  private static final Map<UUID, AtomicInteger> received = new ConcurrentHashMap<>();
  private static final AtomicInteger refused = new AtomicInteger();
  /** Results the coordinator side refuses for good, whatever {@link #refusal} says; null: none. */
  private static volatile java.util.function.Predicate<KernelResult> refuseForGood;
  private static final List<RunStatus> statuses = new java.util.concurrent.CopyOnWriteArrayList<>();

  @TempDir Path outbox;
  private String deployment;

  @BeforeAll
  static void cluster() throws Exception {
    coordinator = CLUSTER.join(ClusterSettings.COORDINATOR);
    coordinator.eventBus().<io.busload.protocol.AgentHello>consumer(Addresses.AGENT_HELLO,
        m -> m.reply(Ack.ok(m.body().agentId()))).completion().await(10, TimeUnit.SECONDS);
    coordinator.eventBus().consumer(Addresses.AGENT_HEARTBEAT, m -> { }).completion().await(10, TimeUnit.SECONDS);
    coordinator.eventBus().<RunStatus>consumer(Addresses.RUN_STATUS, m -> {
      statuses.add(m.body());
      m.reply(Ack.ok(m.body().runId()));
    }).completion().await(10, TimeUnit.SECONDS);
    MessageConsumer<KernelResult> results = coordinator.eventBus().consumer(Addresses.RESULTS, m -> {
      KernelResult result = m.body();
      java.util.function.Predicate<KernelResult> forGood = refuseForGood;
      String reason = forGood != null && forGood.test(result) ? "kernel: at most 200 characters" : refusal;
      if (reason != null) {
        refused.incrementAndGet();
        m.reply(Ack.refused(result.id().toString(), reason));
      } else if (acking) {
        received.computeIfAbsent(result.id(), id -> new AtomicInteger()).incrementAndGet();
        m.reply(Ack.ok(result.id().toString()));
      }
      // else: no answer, the agent's request times out and it retries
    });
    results.completion().await(10, TimeUnit.SECONDS);
    agentVertx = CLUSTER.join(ClusterSettings.AGENT);
  }

  @AfterEach
  void undeploy() throws Exception {
    if (deployment != null) {
      agentVertx.undeploy(deployment).await(30, TimeUnit.SECONDS);
    }
    refusal = null;
    refuseForGood = null;
    acking = false;
    received.clear();
    refused.set(0);
    statuses.clear();
  }

  @Test
  void outbox_oneResultRefusedForGood_restOfRunAndItsDoneStatusStillDelivered() throws Exception {
    String agentId = "outbox-agent-" + UUID.randomUUID();
    refuseForGood = r -> r.kernel().startsWith("memcpy");
    acking = true;
    deployment = deploy(agentId);
    String runId = "run-" + UUID.randomUUID();
    RunRequest run = new RunRequest(Protocol.SCHEMA_VERSION, runId, "sweep-1", "outbox-host/cpu", "stride",
        Map.of("elements", "4096"));
    assertThat(coordinator.eventBus().<Ack>request(Addresses.agentRuns(agentId), run).await(20, TimeUnit.SECONDS)
        .body().ok()).isTrue();

    Await.until(() -> statuses.stream().anyMatch(s -> runId.equals(s.runId()) && s.state() == RunStatus.State.DONE),
        Duration.ofSeconds(120), "the run's DONE status delivered");
    Await.until(() -> refused.get() >= 3, Duration.ofSeconds(30), "the refused result tried again on its own lane");
    // An acked result's file is deleted on a worker thread after its ack, so the last one may still be there when
    // DONE (queued behind it) has arrived: wait for the deletions, then demand that exactly the refused one is left.
    Await.until(() -> OutboxFiles.in(outbox).size() <= 1, Duration.ofSeconds(20), "the acked results' files deleted");

    Set<String> left = OutboxFiles.in(outbox);
    assertThat(left).as("only the refused result left in the outbox").hasSize(1);
    KernelResult kept = JsonCodec.fromJson(Files.readAllBytes(outbox.resolve(left.iterator().next())),
        KernelResult.class);
    assertThat(kept.kernel()).startsWith("memcpy");
    assertThat(received).as("every other result of the run acked").hasSize(8)
        .allSatisfy((id, times) -> assertThat(times.get()).isEqualTo(1));

    // A coordinator that takes it after all (upgraded) gets it from that lane, and the file goes.
    refuseForGood = null;
    Await.until(() -> OutboxFiles.in(outbox).isEmpty(), Duration.ofSeconds(30), "the refused result acked once taken");
    assertThat(received).hasSize(9).containsKey(kept.id());
    System.out.printf("outbox refused-for-good: run DONE delivered with %d results acked while %s was refused %d"
        + " times on its own lane; acked once the coordinator took it%n", 8, kept.kernel(), refused.get());
  }

  @Test
  void outbox_agentStoppedBeforeAck_nextAgentResendsAndFileGoneAfterAck() throws Exception {
    String agentId = "outbox-agent-" + UUID.randomUUID();
    deployment = deploy(agentId);
    RunRequest run = new RunRequest(Protocol.SCHEMA_VERSION, "run-" + UUID.randomUUID(), "sweep-1",
        "outbox-host/cpu", "stride", Map.of("elements", "4096"));
    Ack accepted = coordinator.eventBus().<Ack>request(Addresses.agentRuns(agentId), run)
        .await(20, TimeUnit.SECONDS).body();
    assertThat(accepted.ok()).as(String.valueOf(accepted.reason())).isTrue();
    Await.until(() -> OutboxFiles.in(outbox).size() == 9, Duration.ofSeconds(120), "9 results in the outbox");
    Set<String> measured = OutboxFiles.in(outbox);

    // The agent stops before any ack: nothing answered its sends.
    agentVertx.undeploy(deployment).await(30, TimeUnit.SECONDS);
    deployment = null;
    assertThat(received).isEmpty();
    assertThat(OutboxFiles.in(outbox)).isEqualTo(measured);

    acking = true;
    deployment = deploy(agentId);
    Await.until(() -> OutboxFiles.in(outbox).isEmpty(), Duration.ofSeconds(60), "outbox drained");

    assertThat(received.keySet().stream().map(id -> id + Outbox.SUFFIX).collect(Collectors.toSet()))
        .isEqualTo(measured);
    System.out.printf("outbox restart: %d results measured before the stop, %d resent and acked after it, "
        + "%d left in the outbox%n", measured.size(), received.size(), OutboxFiles.in(outbox).size());
  }

  @Test
  void outbox_resultRefusedForSchema_keptOnDiskAndLogged() throws Exception {
    try (LogCapture log = LogCapture.of(Delivery.class)) {
      KernelResult result = result();
      Outbox.open(outbox).put(result);
      refusal = "schema version 2 is newer than 1";

      deployment = deploy("outbox-agent-" + UUID.randomUUID());
      Await.until(() -> refused.get() >= 2, Duration.ofSeconds(20), "two refusals");

      assertThat(OutboxFiles.in(outbox)).containsExactly(result.id() + Outbox.SUFFIX);
      // The coordinator side counts a refusal before the agent has logged it: wait for the line.
      Await.until(() -> log.messages().stream().anyMatch(m -> m.contains(result.id().toString())
          && m.contains("refused (schema version 2 is newer than 1)")), Duration.ofSeconds(20),
          "the refusal logged with the result id and the reason");

      // Once a coordinator acks it (upgraded), it goes.
      refusal = null;
      acking = true;
      Await.until(() -> OutboxFiles.in(outbox).isEmpty(), Duration.ofSeconds(40), "acked after the refusals");
      assertThat(received).containsOnlyKeys(result.id());
    }
  }

  @Test
  void outbox_corruptFile_movedAsideWithReasonAndOthersSent() throws Exception {
    KernelResult good = result();
    Outbox.open(outbox).put(good);
    Files.writeString(outbox.resolve(UUID.randomUUID() + Outbox.SUFFIX), "{\"schemaVersion\":1,\"id\":", StandardCharsets.UTF_8);
    Files.writeString(outbox.resolve("not-a-result.json"), "\u0000\u0001garbage", StandardCharsets.UTF_8);
    acking = true;

    deployment = deploy("outbox-agent-" + UUID.randomUUID());
    Await.until(() -> OutboxFiles.in(outbox).isEmpty(), Duration.ofSeconds(30), "outbox drained");

    assertThat(received).containsOnlyKeys(good.id());
    Path corrupt = outbox.resolve(Outbox.CORRUPT);
    try (Stream<Path> aside = Files.list(corrupt)) {
      assertThat(aside.map(p -> p.getFileName().toString())).hasSize(4).contains("not-a-result.json",
          "not-a-result.json.reason");
    }
    assertThat(Files.readString(corrupt.resolve("not-a-result.json.reason"))).startsWith("malformed KernelResult");
  }

  private String deploy(String agentId) throws Exception {
    AgentConfig config = new AgentConfig(agentId, "outbox-host", "test", Fatbin.sha256(),
        List.of(CpuDevice.create("outbox-host")), outbox, Duration.ofMillis(500), Duration.ofSeconds(30),
        Duration.ofMillis(500));
    return agentVertx.deployVerticle(new AgentVerticle(config)).await(30, TimeUnit.SECONDS);
  }

  private static KernelResult result() {
    return KernelResult.builder().id(UUID.randomUUID()).agentId("outbox-agent").agentVersion("test")
        .fatbinHash("hash").device(CpuDevice.create("outbox-host").info()).suite("stride")
        .kernel("stride_copy_fp32").params(Map.of("stride", 2, "elements", 1024)).valid(true).mismatches(List.of())
        .medianSeconds(1e-4).minSeconds(1e-4).maxSeconds(1e-4).relativeSpread(0).samples(List.of(1e-4))
        .launchesPerSample(1).warmupLaunches(1).bytesRead(4096).bytesWritten(4096).bytes(8192)
        .bandwidth(8192 / 1e-4).method("test").measuredAt(Instant.now()).build();
  }
}
