package io.busload.coordinator.store;

import io.busload.protocol.RunStatus;
import java.util.Optional;

/**
 * Where a run stands in the coordinator, and the moves allowed between states. {@link SweepStore} asks this type
 * where a run goes and writes what it answers, so the rules live here and are tested here.
 *
 * <pre>
 *   QUEUED  --accepted, or the agent reports RUNNING-->  RUNNING
 *   QUEUED, RUNNING  --the agent reports DONE, FAILED or INTERRUPTED, or the coordinator ends it-->  that state
 *   INTERRUPTED  --the agent reports DONE, FAILED or INTERRUPTED-->  that state
 *   DONE, FAILED: final
 * </pre>
 *
 * <p>The same names as the protocol's {@link RunStatus.State}, which is what an agent reports; they differ in what
 * QUEUED means (here: in the coordinator's queue; there: waiting on the agent's worker), hence a type of its own.
 */
public enum RunState {
  /** Waiting in the coordinator's queue for its device. */
  QUEUED,
  /** Its agent accepted it, or reports on it. */
  RUNNING,
  DONE,
  FAILED,
  /** The coordinator lost track of it (its agent went offline, or forgot it); the agent may still finish it. */
  INTERRUPTED;

  /** DONE or FAILED: nothing moves the run any more, so a late, retried report cannot undo it. */
  public boolean isFinal() {
    return this == DONE || this == FAILED;
  }

  /** A finished run frees its device; INTERRUPTED counts, else a lost run would hold the device forever. */
  public boolean finished() {
    return isFinal() || this == INTERRUPTED;
  }

  /** QUEUED or RUNNING: the coordinator still expects to hear of the run. */
  private boolean live() {
    return this == QUEUED || this == RUNNING;
  }

  /**
   * The agent accepted the run: a QUEUED run becomes RUNNING. Empty in any other state: the agent's own report got
   * there first.
   */
  public Optional<RunState> accepted() {
    return this == QUEUED ? Optional.of(RUNNING) : Optional.empty();
  }

  /**
   * The coordinator gives up on the run (its agent refused it, lost it, or went offline) and ends it as {@code end}.
   * Only a run still QUEUED or RUNNING ends; one that finished some other way stays as it is (empty).
   *
   * @throws IllegalArgumentException when {@code end} is not a finished state
   */
  public Optional<RunState> endedAs(RunState end) {
    requireFinished(end);
    return live() ? Optional.of(end) : Optional.empty();
  }

  /**
   * Where the run goes when its agent reports {@code reported}; empty when the report changes nothing, not even the
   * progress it carries. An agent's QUEUED (the run waits on its worker) keeps the run where it is: putting it back
   * in the coordinator's queue would dispatch it twice. An INTERRUPTED run may still become what the agent says
   * finished it; a final one stays.
   */
  public Optional<RunState> reported(RunStatus.State reported) {
    return switch (reported) {
      case QUEUED -> live() ? Optional.of(this) : Optional.empty();
      case RUNNING -> live() ? Optional.of(RUNNING) : Optional.empty();
      case DONE, FAILED, INTERRUPTED -> isFinal() ? Optional.empty() : Optional.of(of(reported));
    };
  }

  /** Refuses a state that does not finish a run, naming it. */
  static RunState requireFinished(RunState end) {
    if (!end.finished()) {
      throw new IllegalArgumentException("not a final state: " + end);
    }
    return end;
  }

  /** The state an agent reported, as a run's state. */
  public static RunState of(RunStatus.State state) {
    return switch (state) {
      case QUEUED -> QUEUED;
      case RUNNING -> RUNNING;
      case DONE -> DONE;
      case FAILED -> FAILED;
      case INTERRUPTED -> INTERRUPTED;
    };
  }

  /** This state as the protocol names it, for the run statuses the coordinator publishes. */
  public RunStatus.State wire() {
    return switch (this) {
      case QUEUED -> RunStatus.State.QUEUED;
      case RUNNING -> RunStatus.State.RUNNING;
      case DONE -> RunStatus.State.DONE;
      case FAILED -> RunStatus.State.FAILED;
      case INTERRUPTED -> RunStatus.State.INTERRUPTED;
    };
  }
}
