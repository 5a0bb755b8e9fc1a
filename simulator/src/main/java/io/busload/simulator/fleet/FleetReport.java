package io.busload.simulator.fleet;

import java.io.PrintStream;

/**
 * A fleet run's figures against the fleet's targets (stated in each section's title), with the command that
 * reproduces them.
 */
public record FleetReport(String command, String startedAt, FleetRun.Options options, FleetRun.Figures figures) {

  /** Markdown, one section per phase; each target is stated beside what was measured. */
  public void print(PrintStream out) {
    FleetFigures.Online on = figures.online();
    FleetFigures.Steady st = figures.steady();
    out.println("# A coordinator under a simulated fleet (busload simulate fleet)");
    out.println();
    out.println("Command: `" + command + "`, started " + startedAt + ". One coordinator process (embedded "
        + "PostgreSQL, -Xmx" + options.coordinatorHeap() + "); " + options.agents() + " virtual agents x "
        + options.devices() + " devices in one simulator JVM, "
        + (options.transport() == FleetRun.Transport.BRIDGE
            ? "which joins no cluster: each agent holds its own WebSocket to the coordinator's bridge on loopback, "
                + (options.security() == FleetRun.Security.MUTUAL_TLS
                    ? "with mutual TLS (each agent with a certificate of its own)." : "plain (no TLS).")
            : "which is one Hazelcast lite member."));
    out.println();
    FleetFigures.Certificates certs = figures.certificates();
    out.println("Bridge security: " + options.security() + (certs == null ? "." : String.format(
        "; fleet CA %s, the coordinator's certificate and %d agent certificates issued in-process in %.2f s, before "
            + "any measured window.", certs.fleetId(), certs.agentCertificates(), certs.seconds())));
    out.println();
    out.println("## Online");
    out.printf("%d agents, %d devices online %.1f s after the agents started (load %.2f); the coordinator used %.2f "
        + "CPU s meanwhile (%.1f ms per agent: connection%s, hello, heartbeats, the simulator's polls).%n%n",
        on.agents(), on.devices(), on.secondsToAllOnline(), on.loadAverage(), on.coordinatorCpuSeconds(),
        on.coordinatorCpuSeconds() * 1000 / on.agents(),
        options.security() == FleetRun.Security.MUTUAL_TLS ? " with its TLS handshake" : "");
    out.println("## Steady under heartbeats (target: coordinator <= 0.5 core, heap flat)");
    out.printf("| window | coordinator JVM cores | PostgreSQL cores | heartbeats/s | coordinator RSS MiB | collections "
        + "| heap after GC, first fifth MiB | last fifth MiB | slope MiB/min | load avg start / end |%n");
    out.println("|---|---|---|---|---|---|---|---|---|---|");
    out.printf("| %.0f s | %.3f | %.3f | %.0f | %.0f | %d | %.1f | %.1f | %.2f | %.2f / %.2f |%n%n", st.seconds(),
        st.coordinatorCores(), st.postgresCores(), st.heartbeatsPerSecond(), st.coordinatorRssBytes() / 1048576.0,
        st.collections(), st.heapAfterGcFirstBytes() / 1048576.0, st.heapAfterGcLastBytes() / 1048576.0,
        st.heapSlopeBytesPerMinute() / 1048576.0, st.loadAverageStart(), st.loadAverageEnd());
    out.println("## Sweeps (targets: dispatched to every device in <= 10 s; every result stored once)");
    out.println("| sweep | runs | run requests taken | dispatched in s | results measured | rows stored | lost "
        + "| duplicated | all stored after s | results/s | run states | coordinator cores | PostgreSQL cores "
        + "| load avg |");
    out.println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    row(out, figures.sweep());
    row(out, figures.drop().sweep());
    out.println();
    FleetFigures.Drop d = figures.drop();
    out.println("## Drop (10% of the agents at once, mid-sweep, then back)");
    out.printf("%d agents dropped; the coordinator listed all of them offline %.1f s later; their runs then: %s; "
        + "on return they found %d result(s) in their outboxes and sent them again; all back online %.1f s after "
        + "they restarted.%n", d.droppedAgents(), d.secondsToOffline(), d.droppedRunStates(), d.resentFromOutbox(),
        d.secondsBackOnline());
  }

  private static void row(PrintStream out, FleetFigures.Sweep s) {
    out.printf("| %s | %d | %d | %.2f | %d | %d | %d | %d | %.1f | %.0f | %s | %.3f | %.3f | %.2f |%n", s.label(),
        s.runs(), s.runsTaken(), s.dispatchSeconds(), s.resultsMade(), s.resultsStored(), s.lost(), s.duplicated(),
        s.storeSeconds(), s.resultsPerSecond(), s.runStates(), s.coordinatorCores(), s.postgresCores(),
        s.loadAverage());
  }
}
