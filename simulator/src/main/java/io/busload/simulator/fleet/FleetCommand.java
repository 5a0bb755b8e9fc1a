package io.busload.simulator.fleet;

import io.busload.protocol.JsonCodec;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code busload simulate fleet}: a real coordinator under many virtual agents, against the fleet's targets. */
@Command(name = "fleet", mixinStandardHelpOptions = true,
    description = "Start a coordinator (embedded PostgreSQL) and virtual agents that speak the real protocol: all "
        + "online, steady under heartbeats, a sweep to every device, a tenth of the agents dropped and back.")
public final class FleetCommand implements Callable<Integer> {
  @Option(names = "--agents", defaultValue = "1000", description = "Virtual agents (default ${DEFAULT-VALUE}).")
  int agents;

  @Mixin VirtualFleetOptions fleet;

  @Option(names = "--steady", defaultValue = "600", description = "Seconds under heartbeats alone (default ${DEFAULT-VALUE}).")
  int steadySeconds;

  @Option(names = "--drop-kernel-ms", defaultValue = "8000",
      description = "Simulated time of one kernel case in the drop sweep, so that runs are in flight when agents drop"
          + " (default ${DEFAULT-VALUE}).")
  long dropKernelMillis;

  @Option(names = "--drop", defaultValue = "0.1", description = "Fraction of agents dropped at once (default ${DEFAULT-VALUE}).")
  double drop;

  @Option(names = "--transport", defaultValue = "cluster",
      description = "How agents reach the coordinator: cluster (one shared member) or bridge (a WebSocket each to the"
          + " coordinator's bridge, on --http-port + 1). Default ${DEFAULT-VALUE}.")
  String transport;

  @Option(names = "--tls",
      description = "The bridge's connections: on (mutual TLS, a certificate per virtual agent issued in-process, as"
          + " real agents connect) or off (plain WebSockets, to compare). Default: on with --transport bridge;"
          + " the cluster transport is always plain.")
  String tls;

  @Option(names = "--out", required = true, description = "Directory for fleet.md, fleet.json, the coordinator's data and logs.")
  Path out;

  @Override
  public Integer call() throws Exception {
    if (agents < 1 || fleet.devices < 1) {
      throw new IllegalArgumentException("--agents and --devices: at least 1, got " + agents + " and "
          + fleet.devices);
    }
    if (!(drop > 0 && drop < 1)) {
      throw new IllegalArgumentException("--drop: a fraction between 0 and 1, got " + drop);
    }
    String command = "./busload simulate fleet --agents " + agents + " --steady " + steadySeconds + fleet.arguments()
        + " --drop-kernel-ms " + dropKernelMillis + " --drop " + drop;
    FleetRun.Transport way = switch (transport) {
      case "cluster" -> FleetRun.Transport.CLUSTER;
      case "bridge" -> FleetRun.Transport.BRIDGE;
      default -> throw new IllegalArgumentException("--transport: cluster or bridge, got '" + transport + "'");
    };
    command += " --transport " + transport;
    FleetRun.Security security = switch (tls == null ? (way == FleetRun.Transport.BRIDGE ? "on" : "off") : tls) {
      case "on" -> FleetRun.Security.MUTUAL_TLS;
      case "off" -> FleetRun.Security.PLAIN;
      default -> throw new IllegalArgumentException("--tls: on or off, got '" + tls + "'");
    };
    if (security == FleetRun.Security.MUTUAL_TLS && way != FleetRun.Transport.BRIDGE) {
      throw new IllegalArgumentException("--tls on: only with --transport bridge (the cluster transport is one "
          + "member on loopback, plain)");
    }
    if (way == FleetRun.Transport.BRIDGE) {
      command += " --tls " + (security == FleetRun.Security.MUTUAL_TLS ? "on" : "off");
    }
    String startedAt = Instant.now().toString();
    Files.createDirectories(out);
    FleetRun.Options resolved = fleet.run(agents, Duration.ofSeconds(steadySeconds),
        Duration.ofMillis(dropKernelMillis), drop, out.resolve("run"), way, security);
    FleetRun.Figures figures;
    try (FleetRun run = new FleetRun(resolved, System.out)) {
      figures = run.run();
    }
    FleetReport report = new FleetReport(command, startedAt, resolved, figures);
    report.print(System.out);
    try (PrintStream md = new PrintStream(out.resolve("fleet.md").toFile(), StandardCharsets.UTF_8)) {
      report.print(md);
    }
    Files.write(out.resolve("fleet.json"), JsonCodec.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsBytes(report));
    boolean clean = figures.sweep().lost() == 0 && figures.sweep().duplicated() == 0
        && figures.drop().sweep().lost() == 0 && figures.drop().sweep().duplicated() == 0;
    return clean ? 0 : 1;
  }
}
