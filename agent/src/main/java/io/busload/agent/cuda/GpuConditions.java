package io.busload.agent.cuda;

import io.busload.agent.device.DeviceConditions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Clocks, temperature, throttle reasons and other compute processes of one GPU from {@code nvidia-smi}, recorded
 * before and after each case (the result's method): a throttling or shared GPU is flagged in the result.
 */
final class GpuConditions {
  static final String QUERY_GPU = "--query-gpu=clocks.sm,clocks.mem,temperature.gpu,clocks_throttle_reasons.active";
  static final String QUERY_APPS = "--query-compute-apps=pid,process_name,used_memory";
  /** Throttle reason bits that are not throttling: GPU idle (0x1), application clocks setting (0x2), display clock (0x100). */
  static final long BENIGN_REASONS = 0x1 | 0x2 | 0x100;

  private GpuConditions() {}

  /** @param gpu what {@code nvidia-smi -i} accepts: the GPU's UUID or index */
  static DeviceConditions query(String gpu) {
    List<String> state;
    List<String> apps;
    try {
      // Both at once: each nvidia-smi call pays the driver query's latency, and four of them a case would eat into
      // the suite's 90 s budget.
      // On a virtual thread: the common pool is busy with the fills and checks beside it.
      var appsLater = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
        try {
          return run("nvidia-smi", QUERY_APPS, "--format=csv,noheader,nounits", "-i", gpu);
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }, runnable -> Thread.ofVirtual().start(runnable));
      state = run("nvidia-smi", QUERY_GPU, "--format=csv,noheader,nounits", "-i", gpu);
      try {
        apps = appsLater.join();
      } catch (java.util.concurrent.CompletionException e) {
        throw e.getCause() instanceof java.io.UncheckedIOException u ? u.getCause() : new IOException(e.getCause());
      }
    } catch (IOException e) {
      return DeviceConditions.notRecorded(e.getMessage().contains("error=2") || e.getMessage().contains("error: 2 ") ? "nvidia-smi not found" : "nvidia-smi: " + e.getMessage());
    }
    if (state.isEmpty()) {
      return DeviceConditions.notRecorded("nvidia-smi printed nothing for GPU " + gpu);
    }
    return parse(state.getFirst(), apps, ProcessHandle.current().pid());
  }

  /** {@code 1980, 2619, 41, 0x0000000000000000} and {@code pid, name, MiB} lines; our own process is not "other". */
  static DeviceConditions parse(String state, List<String> apps, long ownPid) {
    String[] f = state.split(",\\s*");
    if (f.length < 4) {
      return DeviceConditions.notRecorded("unexpected nvidia-smi output '" + state + "'");
    }
    boolean throttling = false;
    String reasons = f[3].trim();
    try {
      throttling = (Long.decode(reasons) & ~BENIGN_REASONS) != 0;
    } catch (NumberFormatException e) {
      reasons = reasons + " (unparsed)";
    }
    List<String> others = new ArrayList<>();
    for (String app : apps) {
      String[] a = app.split(",\\s*");
      if (a.length >= 1 && !a[0].isBlank() && !a[0].trim().equals(Long.toString(ownPid))) {
        others.add(app.trim());
      }
    }
    String text = "sm " + f[0].trim() + " MHz, mem " + f[1].trim() + " MHz, " + f[2].trim() + " C, throttle reasons "
        + reasons + ", " + (others.isEmpty() ? "no other processes" : "other processes: " + String.join("; ", others));
    return new DeviceConditions(text, throttling, !others.isEmpty());
  }

  /** Runs a command of a few seconds (nvidia-smi), its non-blank output lines; IOException on failure or 10 s. */
  static List<String> run(String... command) throws IOException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IOException("timed out after 10 s");
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted");
    }
    List<String> lines = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines()
        .filter(l -> !l.isBlank()).toList();
    if (process.exitValue() != 0) {
      throw new IOException("exit " + process.exitValue() + ": " + String.join(" ", lines));
    }
    return lines.stream().filter(l -> !l.startsWith("No running")).toList();
  }
}
