package io.busload.coordinator.store;

import static io.busload.coordinator.store.RunState.DONE;
import static io.busload.coordinator.store.RunState.FAILED;
import static io.busload.coordinator.store.RunState.INTERRUPTED;
import static io.busload.coordinator.store.RunState.QUEUED;
import static io.busload.coordinator.store.RunState.RUNNING;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SweepTest {
  static Stream<Arguments> runsAndSweep() {
    return Stream.of(
        Arguments.of("allQueued", List.of(QUEUED, QUEUED), Sweep.State.QUEUED),
        Arguments.of("oneDoneOneQueued", List.of(DONE, QUEUED), Sweep.State.RUNNING),
        Arguments.of("oneFailedOneRunning", List.of(FAILED, RUNNING), Sweep.State.RUNNING),
        Arguments.of("allDone", List.of(DONE, DONE), Sweep.State.DONE),
        Arguments.of("allFinishedOneInterrupted", List.of(DONE, INTERRUPTED), Sweep.State.FAILED));
  }

  @ParameterizedTest(name = "{0}: {2}")
  @MethodSource("runsAndSweep")
  void stateOf_runStates_sweepState(String name, List<RunState> runs, Sweep.State expected) {
    assertThat(Sweep.stateOf(runs)).isEqualTo(expected);
  }
}
