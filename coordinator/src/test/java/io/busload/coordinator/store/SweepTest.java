package io.busload.coordinator.store;

import static io.busload.coordinator.store.RunState.DONE;
import static io.busload.coordinator.store.RunState.FAILED;
import static io.busload.coordinator.store.RunState.INTERRUPTED;
import static io.busload.coordinator.store.RunState.QUEUED;
import static io.busload.coordinator.store.RunState.RUNNING;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SweepTest {
  @Test
  void stateOf_allQueued_isQueued() {
    assertThat(Sweep.stateOf(List.of(QUEUED, QUEUED))).isEqualTo(Sweep.State.QUEUED);
  }

  @Test
  void stateOf_oneDoneOneQueued_isRunning() {
    assertThat(Sweep.stateOf(List.of(DONE, QUEUED))).isEqualTo(Sweep.State.RUNNING);
  }

  @Test
  void stateOf_oneFailedOneRunning_isStillRunning() {
    assertThat(Sweep.stateOf(List.of(FAILED, RUNNING))).isEqualTo(Sweep.State.RUNNING);
  }

  @Test
  void stateOf_allDone_isDone() {
    assertThat(Sweep.stateOf(List.of(DONE, DONE))).isEqualTo(Sweep.State.DONE);
  }

  @Test
  void stateOf_allFinishedOneInterrupted_isFailed() {
    assertThat(Sweep.stateOf(List.of(DONE, INTERRUPTED))).isEqualTo(Sweep.State.FAILED);
  }
}
