package io.busload.agent.measure;

import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The rest of a run in a fresh JVM ({@code Main run ... --from-case K --format json}): after a sticky CUDA error
 * the process that saw it can no longer use the GPU, and restarting the process is the only cure NVIDIA
 * documents. The child inherits this process's class path and stderr (its log).
 */
public final class FreshProcess implements Measurement.Continuation {
  private final String suite;
  private final String deviceShortId;
  private final Map<String, String> options;

  public FreshProcess(String suite, String deviceShortId, Map<String, String> options) {
    this.suite = suite;
    this.deviceShortId = deviceShortId;
    this.options = Map.copyOf(options);
  }

  /** A child's result as this run's: the child measured without the run's ids. */
  public static KernelResult stamped(KernelResult r, RunContext context) {
    return KernelResult.builder().schemaVersion(r.schemaVersion()).id(r.id()).runId(context.runId())
        .sweepId(context.sweepId()).agentId(context.agentId()).agentVersion(r.agentVersion())
        .fatbinHash(r.fatbinHash()).device(r.device()).suite(r.suite()).kernel(r.kernel()).params(r.params())
        .valid(r.valid()).mismatches(r.mismatches()).medianSeconds(r.medianSeconds()).minSeconds(r.minSeconds())
        .maxSeconds(r.maxSeconds()).relativeSpread(r.relativeSpread()).samples(r.samples())
        .launchesPerSample(r.launchesPerSample()).warmupLaunches(r.warmupLaunches()).bytesRead(r.bytesRead())
        .bytesWritten(r.bytesWritten()).bytes(r.bytes()).bandwidth(r.bandwidth()).method(r.method())
        .measuredAt(r.measuredAt()).counters(r.counters()).origin(r.origin()).status(r.status())
        .sampling(r.sampling()).energy(r.energy()).build();
  }

  /** The child's command line, for the log and for tests. */
  public List<String> command(int fromCase) {
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    command.add("--enable-native-access=ALL-UNNAMED");
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.busload.agent.Main", "run",
        "--suite", suite, "--device", deviceShortId, "--format", "json", "--from-case", Integer.toString(fromCase)));
    options.forEach((name, value) -> command.add("--option=" + name + "=" + value));
    return command;
  }

  @Override
  public List<KernelResult> run(int fromCase) throws IOException, InterruptedException {
    Process child = new ProcessBuilder(command(fromCase)).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    byte[] json = child.getInputStream().readAllBytes();
    if (!child.waitFor(10, TimeUnit.MINUTES)) {
      child.destroyForcibly();
      throw new IOException("the fresh process did not finish in 10 minutes");
    }
    if (json.length == 0) {
      throw new IOException("the fresh process printed no results (exit " + child.exitValue() + ")");
    }
    return Arrays.asList(JsonCodec.fromJson(json, KernelResult[].class));
  }
}
