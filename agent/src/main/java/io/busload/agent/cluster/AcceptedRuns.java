package io.busload.agent.cluster;

import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Run ids this agent accepted since it started. A coordinator asks again when it missed the agent's ack (the
 * reply was lost, or the coordinator that asked died before it recorded the ack and another took over); a
 * second measurement of the same run would store every result twice under new ids. So a repeated request is
 * acked and not run. Bounded: a repeat comes within seconds, never thousands of runs later.
 */
final class AcceptedRuns {
  static final int REMEMBERED = 10_000;
  private final Set<String> ids = new LinkedHashSet<>();

  /** Whether this run was accepted before. Called on the verticle's event loop only, like {@link #accept}. */
  boolean repeated(String runId) {
    return ids.contains(runId);
  }

  /** Remembers an accepted run (a refused one is not: asked again, it is checked again). */
  void accept(String runId) {
    if (ids.add(runId) && ids.size() > REMEMBERED) {
      ids.remove(ids.iterator().next());
    }
  }
}
