package io.busload.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.agent.cluster.AgentConfig;
import io.busload.agent.cluster.AgentVerticle;
import io.busload.agent.cpu.CpuDevice;
import io.busload.agent.cpu.ShortCpuCases;
import io.busload.kernels.Fatbin;
import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.KernelResult;
import io.busload.protocol.Protocol;
import io.busload.protocol.RunRequest;
import io.busload.protocol.RunStatus;
import io.busload.protocol.cluster.ClusterSettings;
import io.busload.testsupport.LoopbackCluster;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * An agent with two devices runs one worker per device, so runs sent to both at once go on at once, and
 * each result names the other device when it measured meanwhile. Two CPU devices stand in for two GPUs.
 */
@ExtendWith(ShortCpuCases.class)
class AgentDevicesAtOnceTest {
  private static final String AGENT_ID = "two-device-agent-" + UUID.randomUUID();

  @AutoClose private final LoopbackCluster cluster = new LoopbackCluster("busload-agent-two-devices");
  @TempDir Path outbox;

  @Test
  void runsOnBothDevicesAtOnce_eachResultNamesTheOtherDeviceWhenItMeasuredMeanwhile() throws Exception {
    Vertx coordinator = cluster.join(ClusterSettings.COORDINATOR);
    List<KernelResult> results = new CopyOnWriteArrayList<>();
    List<RunStatus> statuses = new CopyOnWriteArrayList<>();
    CountDownLatch done = new CountDownLatch(2);
    CountDownLatch helloed = new CountDownLatch(1);
    coordinator.eventBus().<io.busload.protocol.AgentHello>consumer(Addresses.AGENT_HELLO, m -> {
      m.reply(Ack.ok(m.body().agentId()));
      helloed.countDown();
    }).completion().await(10, TimeUnit.SECONDS);
    CoordinatorSide.recordStatuses(coordinator, statuses, done);
    coordinator.eventBus().<KernelResult>consumer(Addresses.RESULTS, m -> CoordinatorSide.keepOnce(m, results))
        .completion().await(10, TimeUnit.SECONDS);

    Vertx agent = cluster.join(ClusterSettings.AGENT);
    CpuDevice a = CpuDevice.create("twin-a");
    CpuDevice b = CpuDevice.create("twin-b");
    agent.deployVerticle(new AgentVerticle(new AgentConfig(AGENT_ID, "twin", "test", Fatbin.sha256(), List.of(a, b),
        outbox, Duration.ofMillis(500), Duration.ofSeconds(30), Duration.ofMillis(500))))
        .await(30, TimeUnit.SECONDS);
    assertThat(helloed.await(30, TimeUnit.SECONDS)).as("hello received").isTrue();

    String runA = "run-a-" + UUID.randomUUID();
    String runB = "run-b-" + UUID.randomUUID();
    Map<String, String> options = Map.of("elements", "65536", RunRequest.PROFILE, "false");
    List<Ack> acks = Future.all(List.of(
        coordinator.eventBus().<Ack>request(Addresses.agentRuns(AGENT_ID), new RunRequest(Protocol.SCHEMA_VERSION,
            runA, "sweep-both", a.info().id(), "stride", options)).map(m -> m.body()),
        coordinator.eventBus().<Ack>request(Addresses.agentRuns(AGENT_ID), new RunRequest(Protocol.SCHEMA_VERSION,
            runB, "sweep-both", b.info().id(), "stride", options)).map(m -> m.body())))
        .await(20, TimeUnit.SECONDS).list();
    assertThat(acks).allSatisfy(ack -> assertThat(((Ack) ack).ok()).isTrue());
    assertThat(done.await(180, TimeUnit.SECONDS)).as("both runs finished").isTrue();
    assertThat(statuses).filteredOn(s -> s.state() != RunStatus.State.RUNNING)
        .allSatisfy(s -> assertThat(s.state()).isEqualTo(RunStatus.State.DONE));

    for (String[] run : List.of(new String[] {runA, a.info().id(), b.info().id()},
        new String[] {runB, b.info().id(), a.info().id()})) {
      List<KernelResult> mine = results.stream().filter(r -> r.runId().equals(run[0])).toList();
      assertThat(mine).as("results of %s", run[0]).hasSize(9).allSatisfy(r -> {
        assertThat(r.valid()).isTrue();
        assertThat(r.device().id()).isEqualTo(run[1]);
        assertThat(r.sampling().othersBusy()).as("at most the other device").isSubsetOf(run[2]);
      });
      // Sent together, the runs overlap (one worker per device): some of each run's cases were sampled beside the other.
      assertThat(mine).as("%s's results beside the other device's run", run[0])
          .anySatisfy(r -> assertThat(r.sampling().othersBusy()).containsExactly(run[2]));
    }
    agent.close().await(30, TimeUnit.SECONDS);
  }
}
