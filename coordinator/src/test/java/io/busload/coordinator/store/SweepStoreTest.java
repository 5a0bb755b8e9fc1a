package io.busload.coordinator.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.busload.coordinator.Fixtures;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.Protocol;
import io.busload.protocol.RunStatus;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Sweeps and runs on a real PostgreSQL: a fresh database on the shared test server. */
class SweepStoreTest {
  private static final DeviceInfo GPU = Fixtures.gpu("h1", 0);

  @RegisterExtension final OpenDatabase database = new OpenDatabase();
  private final SweepStore store = new SweepStore(database.db());

  @Test
  void createSweep_twoDevices_queuesOneRunEachInOrder() {
    new AgentStore(database.db()).saveAgent(Fixtures.hello("a1", GPU, Fixtures.cpu("h1")), Instant.now());

    Sweep first = store.createSweep("stride", Map.of("elements", "1024"),
        List.of(new RunTarget(GPU.id(), "a1", 13), new RunTarget("h1/cpu", "a1", 13)), Instant.now());
    Sweep second = store.createSweep("stride", Map.of(), List.of(new RunTarget(GPU.id(), "a1", 13)),
        Instant.now().plusMillis(5));

    assertThat(first.state()).isEqualTo(Sweep.State.QUEUED);
    assertThat(store.sweep(first.id())).get().satisfies(s -> {
      assertThat(s.runs()).extracting(Run::deviceId).containsExactly(GPU.id(), "h1/cpu");
      assertThat(s.options()).containsEntry("elements", "1024");
      assertThat(s.total()).isEqualTo(26);
    });
    assertThat(store.sweeps(10)).extracting(Sweep::id).containsExactly(second.id(), first.id());
    QueuedRun next = store.nextQueuedRun(GPU.id()).orElseThrow();
    assertThat(next.runId()).isEqualTo(first.runs().getFirst().runId());
    assertThat(next.options()).containsEntry("elements", "1024");
  }

  @Test
  void nextQueuedRuns_threeDevicesTwoSweeps_oldestQueuedRunOfEachDeviceThatHasOne() {
    DeviceInfo second = Fixtures.gpu("h1", 1);
    new AgentStore(database.db()).saveAgent(Fixtures.hello("a1", GPU, second, Fixtures.cpu("h1")), Instant.now());
    Instant now = Instant.now();
    Sweep older = store.createSweep("stride", Map.of(), List.of(new RunTarget(GPU.id(), "a1", 13),
        new RunTarget(second.id(), "a1", 13)), now);
    Sweep newer = store.createSweep("stride", Map.of(), List.of(new RunTarget(GPU.id(), "a1", 13),
        new RunTarget(second.id(), "a1", 13)), now.plusMillis(5));
    // The second device's older run is taken: its next is the newer sweep's.
    store.markAccepted(older.runs().get(1).runId(), now);

    Map<String, QueuedRun> next = store.nextQueuedRuns(List.of(GPU.id(), second.id(), "h1/cpu"));

    assertThat(next).containsOnlyKeys(GPU.id(), second.id());
    assertThat(next.get(GPU.id()).runId()).isEqualTo(older.runs().getFirst().runId());
    assertThat(next.get(second.id()).runId()).isEqualTo(newer.runs().get(1).runId());
    assertThat(store.nextQueuedRuns(List.of())).isEmpty();
  }

  @Test
  void queuedSlurmNodes_runsThroughAPartition_eachNodeOnceWithItsQueuedDevices_standingAgentsLeftOut() {
    Instant now = Instant.now();
    Sweep slurm = store.createSweep("stride", Map.of(), List.of(new RunTarget("n1/cuda:0", "n1", 3, "gpu"),
        new RunTarget("n1/cuda:1", "n1", 3, "gpu"), new RunTarget("n2/cpu", "n2", 3, "cpu")), now);
    store.createSweep("stride", Map.of(), List.of(new RunTarget("n1/cuda:0", "n1", 3, "gpu"),
        new RunTarget(GPU.id(), "a1", 3)), now.plusMillis(5));
    store.endRun(slurm.runs().get(2).runId(), RunState.INTERRUPTED, "job cancelled", now.plusMillis(10));

    assertThat(store.queuedSlurmNodes()).containsExactly(
        new SweepStore.SlurmQueue("n1", "gpu", List.of("n1/cuda:0", "n1/cuda:1")));
  }

  @Test
  void recordStatus_runningAfterDone_keepsDone() {
    Sweep sweep = store.createSweep("stride", Map.of(), List.of(new RunTarget(GPU.id(), "a1", 2)), Instant.now());
    String runId = sweep.runs().getFirst().runId();

    store.recordStatus(Fixtures.status(runId, sweep.id(), "a1", GPU.id(), RunStatus.State.RUNNING, 1, 2), Instant.now());
    store.recordStatus(Fixtures.status(runId, sweep.id(), "a1", GPU.id(), RunStatus.State.DONE, 2, 2), Instant.now());
    Run after = store.recordStatus(
        Fixtures.status(runId, sweep.id(), "a1", GPU.id(), RunStatus.State.RUNNING, 1, 2), Instant.now()).orElseThrow();

    assertThat(after.state()).isEqualTo(RunState.DONE);
    assertThat(after.completed()).isEqualTo(2);
    assertThat(store.sweep(sweep.id()).orElseThrow().state()).isEqualTo(Sweep.State.DONE);
    assertThat(store.nextQueuedRun(GPU.id())).isEmpty();
  }

  @Test
  void markAccepted_thenTheAgentsQueued_staysRunningWithTheReportedProgress() {
    Sweep sweep = store.createSweep("stride", Map.of(), List.of(new RunTarget(GPU.id(), "a1", 2)), Instant.now());
    String runId = sweep.runs().getFirst().runId();

    store.markAccepted(runId, Instant.now());
    Run after = store.recordStatus(
        Fixtures.status(runId, sweep.id(), "a1", GPU.id(), RunStatus.State.QUEUED, 1, 0), Instant.now()).orElseThrow();

    assertThat(after.state()).isEqualTo(RunState.RUNNING);
    assertThat(after.completed()).isEqualTo(1);
    assertThat(after.total()).isEqualTo(2);
    assertThat(store.run(runId)).contains(after);
    assertThat(store.activeRuns()).containsExactly(after);
    assertThat(store.queuedRunCount()).isZero();
  }

  @Test
  void endRun_afterDone_keepsDoneAndItsMessage() {
    Sweep sweep = store.createSweep("stride", Map.of(), List.of(new RunTarget(GPU.id(), "a1", 2)), Instant.now());
    String runId = sweep.runs().getFirst().runId();
    store.recordStatus(Fixtures.status(runId, sweep.id(), "a1", GPU.id(), RunStatus.State.DONE, 2, 2), Instant.now());

    store.endRun(runId, RunState.INTERRUPTED, "lost", Instant.now());

    assertThat(store.run(runId).orElseThrow()).satisfies(r -> {
      assertThat(r.state()).isEqualTo(RunState.DONE);
      assertThat(r.message()).isNull();
    });
  }

  @Test
  void recordStatus_doneAfterTheCoordinatorInterruptedIt_becomesDone() {
    Sweep sweep = store.createSweep("stride", Map.of(), List.of(new RunTarget(GPU.id(), "a1", 2)), Instant.now());
    String runId = sweep.runs().getFirst().runId();
    store.endRun(runId, RunState.INTERRUPTED, "agent offline", Instant.now());
    assertThat(store.runs(GPU.id(), RunState.INTERRUPTED, 10)).extracting(Run::message).containsExactly("agent offline");

    Run after = store.recordStatus(
        Fixtures.status(runId, sweep.id(), "a1", GPU.id(), RunStatus.State.DONE, 2, 2), Instant.now()).orElseThrow();

    assertThat(after.state()).isEqualTo(RunState.DONE);
    assertThat(store.runs(GPU.id(), RunState.INTERRUPTED, 10)).isEmpty();
    assertThat(store.sweep(sweep.id()).orElseThrow().state()).isEqualTo(Sweep.State.DONE);
  }

  @Test
  void recordStatus_unknownRun_returnsEmpty() {
    assertThat(store.recordStatus(new RunStatus(Protocol.SCHEMA_VERSION, "nope", null, "a1", GPU.id(),
        RunStatus.State.DONE, 0, 0, null, Instant.now()), Instant.now())).isEmpty();
  }

  @Test
  void endRun_notAFinalState_isRefused() {
    assertThatThrownBy(() -> store.endRun("r", RunState.RUNNING, "x", Instant.now()))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
