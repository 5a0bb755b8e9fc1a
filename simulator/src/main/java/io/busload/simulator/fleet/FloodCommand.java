package io.busload.simulator.fleet;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code busload simulate flood}: the result-ingest latency of a sweep to every device, with nothing else going on and
 * again under a flood of anonymous expensive reads and slow clients, measured in one run on one coordinator.
 */
@Command(name = "flood", mixinStandardHelpOptions = true,
    description = "Start a coordinator (embedded PostgreSQL) and virtual agents; sweep every device once to warm up, "
        + "then once measured, then again "
        + "while anonymous clients from 127.0.0.2 read the History annotations of every device in a loop and hold "
        + "slow (slowloris) and idle connections to the REST and bridge ports. Prints each sweep's results lost and "
        + "its ack latency (agent's first send to the coordinator's ack, which follows the commit).")
public final class FloodCommand implements Callable<Integer> {
  @Option(names = "--agents", defaultValue = "125", description = "Virtual agents (default ${DEFAULT-VALUE}).")
  int agents;

  @Mixin VirtualFleetOptions fleet;

  @Option(names = "--readers", defaultValue = "32",
      description = "Anonymous clients reading the annotations of every device in a loop (default ${DEFAULT-VALUE}).")
  int readers;

  @Option(names = "--slow", defaultValue = "100",
      description = "Slowloris connections per port, REST and bridge (default ${DEFAULT-VALUE}).")
  int slow;

  @Option(names = "--idle", defaultValue = "100",
      description = "Connections that send nothing, per port (default ${DEFAULT-VALUE}).")
  int idle;

  @Option(names = "--byte-ms", defaultValue = "1000",
      description = "A slowloris connection's pace: one byte every so many ms (default ${DEFAULT-VALUE}).")
  long byteMillis;

  @Option(names = "--out", required = true, description = "Directory for flood.md, the coordinator's data and logs.")
  Path out;

  @Override
  public Integer call() throws Exception {
    if (agents < 1 || fleet.devices < 1 || readers < 0 || slow < 0 || idle < 0 || byteMillis < 1) {
      throw new IllegalArgumentException("--agents, --devices, --byte-ms: at least 1; --readers, --slow, --idle: 0 or"
          + " more");
    }
    String command = "./busload simulate flood --agents " + agents + fleet.arguments() + " --readers " + readers
        + " --slow " + slow + " --idle " + idle + " --byte-ms " + byteMillis;
    String startedAt = Instant.now().toString();
    Files.createDirectories(out);
    FleetRun.Options resolved = fleet.run(agents, Duration.ZERO, Duration.ofMillis(fleet.kernelMillis), 0.1,
        out.resolve("run"), FleetRun.Transport.BRIDGE, FleetRun.Security.PLAIN);
    FleetRun.FloodFigures figures;
    try (FleetRun run = new FleetRun(resolved, System.out)) {
      figures = run.flood(new Flood.Plan(readers, slow, idle, Duration.ofMillis(byteMillis)));
    }
    String report = report(command, startedAt, figures);
    System.out.print(report);
    Files.writeString(out.resolve("flood.md"), report, StandardCharsets.UTF_8);
    FleetRun.FloodPhase quiet = figures.quiet();
    FleetRun.FloodPhase flooded = figures.flooded();
    boolean met = quiet.sweep().lost() == 0 && flooded.sweep().lost() == 0
        && flooded.latency().p99() <= 2 * quiet.latency().p99();
    return met ? 0 : 1;
  }

  static String report(String command, String startedAt, FleetRun.FloodFigures f) {
    StringBuilder md = new StringBuilder();
    md.append("# Flood benchmark\n\n`").append(command).append("`, started ").append(startedAt).append("\n\n");
    md.append("After one unmeasured warm-up sweep. Result-ingest latency: from the virtual agent's first send of a result to the coordinator's ack, which"
        + " it sends after the commit; a result refused as busy counts until its retry is acked.\n\n");
    md.append("| sweep | results made | stored | lost | duplicated | p50 s | p99 s | max s | sweep s |\n");
    md.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    for (FleetRun.FloodPhase p : java.util.List.of(f.quiet(), f.flooded())) {
      md.append(String.format(Locale.ROOT, "| %s | %d | %d | %d | %d | %.3f | %.3f | %.3f | %.1f |%n",
          p.sweep().label(), p.sweep().resultsMade(), p.sweep().resultsStored(), p.sweep().lost(),
          p.sweep().duplicated(), p.latency().p50(), p.latency().p99(), p.latency().max(), p.sweep().storeSeconds()));
    }
    double ratio = f.flooded().latency().p99() / f.quiet().latency().p99();
    md.append(String.format(Locale.ROOT, "%np99 under the flood / p99 without: %.2f (goal: at most 2)%n", ratio));
    Flood.Seen seen = f.flooded().flood();
    md.append("\nThe flood, during the second sweep (questions: ").append(f.questions()).append("):\n\n");
    md.append("- annotation reads answered, by status: ").append(seen.readAnswers()).append('\n');
    md.append("- slow connections closed by the coordinator: ").append(seen.slowClosedByServer()).append('\n');
    md.append("- idle connections closed by the coordinator: ").append(seen.idleClosedByServer()).append('\n');
    md.append("- connects that failed: ").append(seen.connectFailures()).append('\n');
    return md.toString();
  }
}
