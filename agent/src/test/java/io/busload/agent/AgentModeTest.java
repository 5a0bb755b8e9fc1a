package io.busload.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.agent.cluster.AgentConfig;
import io.busload.agent.cluster.AgentVerticle;
import io.busload.agent.cpu.CpuDevice;
import io.busload.agent.cpu.ShortCpuCases;
import io.busload.kernels.Fatbin;
import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.AgentHello;
import io.busload.protocol.Heartbeat;
import io.busload.protocol.KernelResult;
import io.busload.protocol.Protocol;
import io.busload.protocol.RunRequest;
import io.busload.protocol.RunStatus;
import io.busload.protocol.cluster.ClusterSettings;
import io.busload.testsupport.LoopbackCluster;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Agent mode over a real clustered event bus on loopback: this test is the coordinator side (a Hazelcast
 * data member with a unique cluster name), the agent serves its CPU device.
 */
@ExtendWith(ShortCpuCases.class)
class AgentModeTest {
  private static final String AGENT_ID = "test-agent-" + UUID.randomUUID();

  @AutoClose private final LoopbackCluster cluster = new LoopbackCluster("busload-agent-test");
  private Vertx coordinator;
  private Vertx agent;
  private final List<AgentHello> hellos = new CopyOnWriteArrayList<>();
  private final List<Heartbeat> heartbeats = new CopyOnWriteArrayList<>();
  private final List<RunStatus> statuses = new CopyOnWriteArrayList<>();
  private final List<KernelResult> results = new CopyOnWriteArrayList<>();
  private final AtomicInteger refusedResults = new AtomicInteger();
  private final CountDownLatch finished = new CountDownLatch(1);
  private final CountDownLatch helloed = new CountDownLatch(1);
  private CpuDevice cpu;
  @org.junit.jupiter.api.io.TempDir java.nio.file.Path outbox;

  @BeforeEach
  void startCluster() throws Exception {
    coordinator = cluster.join(ClusterSettings.COORDINATOR);
    coordinator.eventBus().<AgentHello>consumer(Addresses.AGENT_HELLO, m -> {
      hellos.add(m.body());
      m.reply(Ack.ok(m.body().agentId()));
      helloed.countDown();
    }).completion().await(10, TimeUnit.SECONDS);
    coordinator.eventBus().<Heartbeat>consumer(Addresses.AGENT_HEARTBEAT, m -> heartbeats.add(m.body()))
        .completion().await(10, TimeUnit.SECONDS);
    CoordinatorSide.recordStatuses(coordinator, statuses, finished);
    coordinator.eventBus().<KernelResult>consumer(Addresses.RESULTS, m -> {
      // The first delivery fails, as at a coordinator whose commit failed (it fails the request with code 500,
      // docs/contract.md): the agent must retry.
      if (refusedResults.getAndIncrement() == 0) {
        m.fail(500, "coordinator store failed: commit failed");
      } else {
        CoordinatorSide.keepOnce(m, results);
      }
    }).completion().await(10, TimeUnit.SECONDS);

    agent = cluster.join(ClusterSettings.AGENT);
    cpu = CpuDevice.create("testhost");
    AgentConfig config = new AgentConfig(AGENT_ID, "testhost", "test", Fatbin.sha256(), List.of(cpu),
        outbox, Duration.ofMillis(500), Duration.ofSeconds(30), Duration.ofMillis(500))
        .withLabels(AgentConfig.labels(Map.of("BUSLOAD_LABELS", " lab-east, rack=a,,lab-east ")));
    agent.deployVerticle(new AgentVerticle(config)).await(30, TimeUnit.SECONDS);
  }

  @Test
  void runRequest_cpuTiny_ackedThenRunningResultsDone() throws Exception {
    assertThat(helloed.await(30, TimeUnit.SECONDS)).as("hello received").isTrue();
    assertThat(hellos.getFirst().devices()).extracting(d -> d.id()).containsExactly("testhost/cpu");
    assertThat(hellos.getFirst().labels()).containsExactly("lab-east", "rack=a");

    RunRequest request = new RunRequest(Protocol.SCHEMA_VERSION, "run-" + UUID.randomUUID(), "sweep-1",
        "testhost/cpu", "stride", Map.of("elements", "4096", RunRequest.PROFILE, "false"));
    Ack ack = coordinator.eventBus().<Ack>request(Addresses.agentRuns(AGENT_ID), request)
        .await(20, TimeUnit.SECONDS).body();

    assertThat(ack.ok()).as(String.valueOf(ack.reason())).isTrue();
    assertThat(ack.id()).isEqualTo(request.runId());
    assertThat(finished.await(120, TimeUnit.SECONDS)).as("DONE status").isTrue();
    assertThat(statuses.getLast().state()).isEqualTo(RunStatus.State.DONE);
    assertThat(statuses.getLast().message()).isNull();
    assertThat(statuses.getLast().completed()).isEqualTo(9);
    assertThat(statuses).filteredOn(s -> s.state() == RunStatus.State.RUNNING).isNotEmpty();
    assertThat(results).hasSize(9).allSatisfy(r -> {
      assertThat(r.valid()).as(r.kernel() + r.params() + r.mismatches()).isTrue();
      assertThat(r.runId()).isEqualTo(request.runId());
      assertThat(r.sweepId()).isEqualTo("sweep-1");
      assertThat(r.agentId()).isEqualTo(AGENT_ID);
      assertThat(r.device().id()).isEqualTo("testhost/cpu");
      assertThat(r.bandwidth()).isPositive();
    });
    assertThat(refusedResults.get()).as("deliveries including the refused one").isEqualTo(10);
    assertThat(heartbeats).isNotEmpty();
    assertThat(heartbeats.getLast().agentId()).isEqualTo(AGENT_ID);
    assertThat(heartbeats).anySatisfy(h -> assertThat(h.devices().getFirst().runId()).isEqualTo(request.runId()));
  }

  @Test
  void runRequest_unknownSuiteOrDevice_refusedWithReason() throws Exception {
    Ack suite = coordinator.eventBus().<Ack>request(Addresses.agentRuns(AGENT_ID), new RunRequest(
        Protocol.SCHEMA_VERSION, "r1", "s1", "testhost/cpu", "nope", Map.of())).await(20, TimeUnit.SECONDS).body();
    Ack device = coordinator.eventBus().<Ack>request(Addresses.agentRuns(AGENT_ID), new RunRequest(
        Protocol.SCHEMA_VERSION, "r2", "s1", "testhost/cuda:3", "stride", Map.of())).await(20, TimeUnit.SECONDS).body();
    Ack schema = coordinator.eventBus().<Ack>request(Addresses.agentRuns(AGENT_ID), new RunRequest(
        Protocol.SCHEMA_VERSION + 1, "r3", "s1", "testhost/cpu", "stride", Map.of())).await(20, TimeUnit.SECONDS).body();

    assertThat(suite.ok()).isFalse();
    assertThat(suite.reason()).startsWith("unknown suite 'nope'; known: coalescing, stride, offset, types, vector");
    assertThat(device.reason()).isEqualTo("unknown device 'testhost/cuda:3'; known: testhost/cpu");
    assertThat(schema.reason()).isEqualTo("schema version 2 is newer than 1");
  }

  @Test
  void runRequest_profileOnTheCpuOrNotABoolean_refusedBeforeAnythingIsMeasured() throws Exception {
    Ack cpuProfile = coordinator.eventBus().<Ack>request(Addresses.agentRuns(AGENT_ID), new RunRequest(
        Protocol.SCHEMA_VERSION, "r4", "s1", "testhost/cpu", "stride", Map.of("profile", "true", "elements", "4096")))
        .await(20, TimeUnit.SECONDS).body();
    Ack notBoolean = coordinator.eventBus().<Ack>request(Addresses.agentRuns(AGENT_ID), new RunRequest(
        Protocol.SCHEMA_VERSION, "r5", "s1", "testhost/cpu", "stride", Map.of("profile", "yes")))
        .await(20, TimeUnit.SECONDS).body();

    assertThat(cpuProfile.ok()).isFalse();
    // No ncu on a test machine: refused for that; with ncu, refused because a CPU is no CUDA device.
    assertThat(cpuProfile.reason()).startsWith("profile: ").containsAnyOf("ncu not found", "is not a CUDA device");
    assertThat(notBoolean.reason()).isEqualTo("profile: must be true or false, got 'yes'");
    Thread.sleep(500);
    assertThat(statuses).as("nothing ran").isEmpty();
    assertThat(results).isEmpty();
  }
}
