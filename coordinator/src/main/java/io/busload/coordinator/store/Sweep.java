package io.busload.coordinator.store;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A suite asked of a set of devices. Its state and progress are never stored: they derive from its runs,
 * so they cannot disagree with them.
 */
public record Sweep(String id, String suite, Map<String, String> options, Instant createdAt, List<Run> runs) {

  public enum State { QUEUED, RUNNING, DONE, FAILED }

  public Sweep {
    options = Map.copyOf(options);
    runs = List.copyOf(runs);
  }

  public State state() {
    return stateOf(runs.stream().map(Run::state).toList());
  }

  /** Kernels measured so far over all runs. */
  public int completed() {
    return runs.stream().mapToInt(Run::completed).sum();
  }

  /** Kernels to measure over all runs, as the suite's size until an agent reports its own count. */
  public int total() {
    return runs.stream().mapToInt(Run::total).sum();
  }

  /**
   * DONE when every run is done; FAILED once every run has finished and one of them did not succeed (a
   * partial sweep is not a done one); QUEUED while nothing has started; RUNNING in between.
   */
  public static State stateOf(List<RunState> runs) {
    if (runs.stream().allMatch(s -> s == RunState.DONE)) {
      return State.DONE;
    }
    if (runs.stream().allMatch(RunState::finished)) {
      return State.FAILED;
    }
    if (runs.stream().allMatch(s -> s == RunState.QUEUED)) {
      return State.QUEUED;
    }
    return State.RUNNING;
  }
}
