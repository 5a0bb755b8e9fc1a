package io.busload.coordinator.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.busload.protocol.RunStatus;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The run state machine on its own, every state against every event: the rules the store writes. */
class RunStateTest {
  /** Rows: the run's state; columns: what its agent reports; cells: the state after, or "-" for no change at all. */
  private static final String REPORTED = """
                   QUEUED   RUNNING  DONE  FAILED  INTERRUPTED
      QUEUED       QUEUED   RUNNING  DONE  FAILED  INTERRUPTED
      RUNNING      RUNNING  RUNNING  DONE  FAILED  INTERRUPTED
      DONE         -        -        -     -       -
      FAILED       -        -        -     -       -
      INTERRUPTED  -        -        DONE  FAILED  INTERRUPTED
      """;

  @Test
  void reported_everyStateAndReport_asTheTableSays() {
    List<String[]> rows = REPORTED.lines().map(l -> l.trim().split("\\s+")).toList();
    String[] reports = rows.getFirst();
    assertThat(rows).hasSize(RunState.values().length + 1);
    for (String[] row : rows.subList(1, rows.size())) {
      RunState from = RunState.valueOf(row[0]);
      for (int i = 0; i < reports.length; i++) {
        RunStatus.State report = RunStatus.State.valueOf(reports[i]);
        Optional<RunState> expected = row[i + 1].equals("-") ? Optional.empty()
            : Optional.of(RunState.valueOf(row[i + 1]));
        assertThat(from.reported(report)).as("%s reported in %s", report, from).isEqualTo(expected);
      }
    }
  }

  @Test
  void accepted_queued_becomesRunningAndNothingElseMoves() {
    assertThat(RunState.QUEUED.accepted()).contains(RunState.RUNNING);
    for (RunState other : List.of(RunState.RUNNING, RunState.DONE, RunState.FAILED, RunState.INTERRUPTED)) {
      assertThat(other.accepted()).as("accepted in %s", other).isEmpty();
    }
  }

  @Test
  void endedAs_liveRunEndsAndAFinishedOneStays() {
    for (RunState end : List.of(RunState.DONE, RunState.FAILED, RunState.INTERRUPTED)) {
      assertThat(RunState.QUEUED.endedAs(end)).contains(end);
      assertThat(RunState.RUNNING.endedAs(end)).contains(end);
      assertThat(RunState.DONE.endedAs(end)).isEmpty();
      assertThat(RunState.FAILED.endedAs(end)).isEmpty();
      assertThat(RunState.INTERRUPTED.endedAs(end)).isEmpty();
    }
  }

  @Test
  void endedAs_notAFinishedState_isRefusedNamingIt() {
    assertThatThrownBy(() -> RunState.QUEUED.endedAs(RunState.RUNNING))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("not a final state: RUNNING");
    assertThatThrownBy(() -> RunState.RUNNING.endedAs(RunState.QUEUED))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("not a final state: QUEUED");
  }

  @Test
  void finishedAndFinal_interruptedFreesTheDeviceButIsNotFinal() {
    assertThat(Arrays.stream(RunState.values()).filter(RunState::finished))
        .containsExactly(RunState.DONE, RunState.FAILED, RunState.INTERRUPTED);
    assertThat(Arrays.stream(RunState.values()).filter(RunState::isFinal))
        .containsExactly(RunState.DONE, RunState.FAILED);
  }

  @Test
  void ofAndWire_everyState_sameNameBothWays() {
    for (RunStatus.State wire : RunStatus.State.values()) {
      assertThat(RunState.of(wire).name()).isEqualTo(wire.name());
      assertThat(RunState.of(wire).wire()).isEqualTo(wire);
    }
    assertThat(RunState.values()).hasSameSizeAs(RunStatus.State.values());
  }
}
