package io.busload.simulator.fleet;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import picocli.CommandLine.Option;

/**
 * The options of a coordinator under virtual agents that {@code simulate fleet} and {@code simulate flood} both take
 * (a picocli mixin), so that the two commands read, default and echo them one way.
 */
final class VirtualFleetOptions {
  @Option(names = "--devices", defaultValue = "8", description = "Devices per agent (default ${DEFAULT-VALUE}).")
  int devices;

  @Option(names = "--suite", defaultValue = "offset", description = "Suite of both sweeps (default ${DEFAULT-VALUE}).")
  String suite;

  @Option(names = "--option", description = "Suite option NAME=VALUE (default offset=0: two cases a run).")
  Map<String, String> suiteOptions;

  @Option(names = "--kernel-ms", defaultValue = "200",
      description = "Simulated time of one kernel case (default ${DEFAULT-VALUE}).")
  long kernelMillis;

  @Option(names = "--coordinator-heap", defaultValue = "1g", description = "-Xmx of the coordinator (default ${DEFAULT-VALUE}).")
  String heap;

  @Option(names = "--base-port", defaultValue = "17701", description = "Coordinator's Hazelcast port (default ${DEFAULT-VALUE}).")
  int basePort;

  @Option(names = "--http-port", defaultValue = "18081",
      description = "Coordinator's REST port; its bridge is on the next (default ${DEFAULT-VALUE}).")
  int httpPort;

  /** The suite's options as given, or offset=0 (two cases a run, the smallest sweep) when none was. */
  Map<String, String> suiteOptions() {
    return suiteOptions == null ? Map.of("offset", "0") : new TreeMap<>(suiteOptions);
  }

  /** These options as a command line would give them again, each with a leading space, for a report's header. */
  String arguments() {
    StringBuilder line = new StringBuilder(" --devices " + devices + " --suite " + suite);
    suiteOptions().forEach((name, value) -> line.append(" --option ").append(name).append('=').append(value));
    return line.append(" --kernel-ms ").append(kernelMillis).append(" --coordinator-heap ").append(heap).toString();
  }

  /** A run of {@code agents} agents with these options; the drop sweep's kernels take {@code dropKernelTime}. */
  FleetRun.Options run(int agents, Duration steady, Duration dropKernelTime, double dropFraction, Path workDir,
      FleetRun.Transport transport, FleetRun.Security security) {
    return new FleetRun.Options(agents, devices, steady, suite, suiteOptions(), Duration.ofMillis(kernelMillis),
        dropKernelTime, dropFraction, heap, basePort, httpPort, workDir, transport, security);
  }
}
