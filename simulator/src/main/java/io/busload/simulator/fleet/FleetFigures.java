package io.busload.simulator.fleet;

import java.util.Map;

/** What a fleet run measured, phase by phase (SI units; the load average beside each figure). */
public final class FleetFigures {
  private FleetFigures() {}

  /**
   * The bridge's certificates, issued in-process before anything was measured: a fleet CA (root, coordinator CA,
   * member CA), the coordinator's certificate written as {@code ./busload certs} writes it, and one per agent.
   *
   * @param seconds all of it, wall clock
   */
  public record Certificates(String fleetId, int agentCertificates, double seconds) {}

  /**
   * Every agent said hello and is listed online with all its devices.
   *
   * @param coordinatorCpuSeconds CPU the coordinator JVM used from the agents' start until all were online: their
   *     connections (with the TLS handshakes, on a TLS bridge), hellos and first heartbeats, and the simulator's
   *     polls of {@code /api/agents}
   */
  public record Online(int agents, int devices, double secondsToAllOnline, double coordinatorCpuSeconds,
      double loadAverage) {}

  /**
   * The coordinator under heartbeats alone.
   *
   * @param heapAfterGcFirstBytes median heap after collection over the window's first fifth
   * @param heapAfterGcLastBytes the same over its last fifth
   * @param heapSlopeBytesPerMinute least-squares slope of heap after collection over the window
   */
  public record Steady(double seconds, double coordinatorCores, double postgresCores, long coordinatorRssBytes,
      int collections, long heapAfterGcFirstBytes, long heapAfterGcLastBytes, double heapSlopeBytesPerMinute,
      double heartbeatsPerSecond, double loadAverageStart, double loadAverageEnd) {}

  /**
   * One sweep to every device.
   *
   * @param dispatchSeconds from the POST to the last run request an agent took
   * @param storeSeconds from the POST to the last result stored (all acked)
   * @param lost results measured (on an agent's disk) that the store does not hold
   * @param duplicated rows beyond one per result id
   * @param runStates runs of the sweep by state, as the coordinator has them at the end
   */
  public record Sweep(String label, String sweepId, int runs, int runsTaken, double dispatchSeconds,
      int resultsMade, int resultsStored, int lost, int duplicated, double storeSeconds, double resultsPerSecond,
      Map<String, Integer> runStates, double coordinatorCores, double postgresCores, double loadAverage) {}

  /**
   * A tenth of the agents dropped at once in the middle of a sweep, and brought back.
   *
   * @param secondsToOffline from the drop until the coordinator listed all of them offline
   * @param droppedRunStates the dropped agents' runs by state before they came back
   * @param resentFromOutbox results the returning agents found in their outboxes and sent again
   */
  public record Drop(int droppedAgents, double secondsToOffline, Map<String, Integer> droppedRunStates,
      int resentFromOutbox, double secondsBackOnline, Sweep sweep) {}
}
