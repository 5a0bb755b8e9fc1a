package io.busload.simulator.membership;

import io.busload.protocol.JsonCodec;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code busload simulate membership}: real member processes, the cost of each cluster size, and fits. */
@Command(name = "membership", mixinStandardHelpOptions = true,
    description = "Start real Hazelcast member processes (fleet settings) and measure what membership costs.")
public final class MembershipCommand implements Callable<Integer> {
  @Option(names = "--sizes", split = ",", defaultValue = "10,25,50,100,125",
      description = "Cluster sizes to measure, ascending (default ${DEFAULT-VALUE}).")
  List<Integer> sizes;

  @Option(names = "--heap", defaultValue = "48m", description = "-Xmx of each member (default ${DEFAULT-VALUE}).")
  String heap;

  @Option(names = "--data-heap", defaultValue = "256m",
      description = "-Xmx of the one data member, the coordinator's role (default ${DEFAULT-VALUE}).")
  String dataHeap;

  @Option(names = "--window", defaultValue = "20", description = "Steady window per size, seconds (default ${DEFAULT-VALUE}).")
  int windowSeconds;

  @Option(names = "--batch", defaultValue = "10", description = "Members started at once while growing (default ${DEFAULT-VALUE}).")
  int batch;

  @Option(names = "--base-port", defaultValue = "16701", description = "Hazelcast port of the first member (default ${DEFAULT-VALUE}).")
  int basePort;

  @Option(names = "--min-free-mib", defaultValue = "3072",
      description = "Stop growing when less memory than this is available (default ${DEFAULT-VALUE}).")
  long minFreeMib;

  @Option(names = "--deadline", defaultValue = "0",
      description = "Seconds after which the run stops growing and waiting and prints the sizes measured so far; "
          + "0 for none (default ${DEFAULT-VALUE}).")
  int deadlineSeconds;

  @Option(names = "--out", required = true, description = "Directory for membership.md, membership.json and member logs.")
  Path out;

  @Override
  public Integer call() throws Exception {
    for (int i = 1; i < sizes.size(); i++) {
      if (sizes.get(i) <= sizes.get(i - 1)) {
        throw new IllegalArgumentException("--sizes: must be ascending, got " + sizes);
      }
    }
    if (sizes.getFirst() < 2) {
      throw new IllegalArgumentException("--sizes: at least 2 members (one data member and one lite), got " + sizes);
    }
    if (deadlineSeconds < 0) {
      throw new IllegalArgumentException("--deadline: seconds, 0 for none, got " + deadlineSeconds);
    }
    // The deadline starts before any member does: it bounds the whole run as the device tool's limit does.
    Deadline deadline = Deadline.after(Duration.ofSeconds(deadlineSeconds));
    String command = "./busload simulate membership --sizes " + String.join(",", sizes.stream().map(String::valueOf)
        .toList()) + " --heap " + heap + " --data-heap " + dataHeap + " --window " + windowSeconds + " --batch " + batch
        + (deadlineSeconds > 0 ? " --deadline " + deadlineSeconds : "");
    String startedAt = Instant.now().toString();
    Files.createDirectories(out);
    List<SizeFigures> figures;
    try (MembershipRun run = new MembershipRun(new MembershipRun.Options(sizes, heap, dataHeap,
        Duration.ofSeconds(windowSeconds), basePort, batch, out.resolve("members"), minFreeMib * 1048576, deadline), System.out)) {
      figures = run.run();
    }
    MembershipReport report = MembershipReport.of(command, startedAt, figures, List.of(250, 500, 1000, 2000));
    report.print(System.out);
    try (PrintStream md = new PrintStream(out.resolve("membership.md").toFile(), StandardCharsets.UTF_8)) {
      report.print(md);
    }
    Files.write(out.resolve("membership.json"), JsonCodec.MAPPER.writerWithDefaultPrettyPrinter()
        .writeValueAsBytes(report));
    return figures.isEmpty() ? 1 : 0;
  }
}
