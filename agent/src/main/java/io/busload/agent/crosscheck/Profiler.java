package io.busload.agent.crosscheck;

import io.busload.agent.measure.Plan;
import io.busload.kernels.Fatbin;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The counter pass of {@code --profile}: runs the native harness (deploy/gpu/crosscheck.cu) with
 * {@code --once} on this plan under {@code ncu}, so every case's steps launch exactly once, and prints
 * {@link ProfileReport}. Where ncu or the harness is missing it says so and measures nothing more.
 */
public final class Profiler {
  /** ncu's place outside PATH: the CUDA toolkit and Nsight Compute's own installs. */
  static final Path CUDA_NCU = Path.of("/usr/local/cuda/bin/ncu");
  static final Path NSIGHT_ROOT = Path.of("/opt/nvidia/nsight-compute");
  /** A whole suite, replayed kernel by kernel, stays well under this. */
  static final long TIMEOUT_MINUTES = 30;

  private Profiler() {}

  /** Every place searched for ncu, in order: PATH entries, the CUDA toolkit, /opt/nvidia/nsight-compute/x/. */
  static List<Path> ncuCandidates(String pathVariable, Path cudaNcu, Path nsightRoot) {
    List<Path> places = new ArrayList<>();
    if (pathVariable != null) {
      for (String dir : pathVariable.split(java.io.File.pathSeparator)) {
        if (!dir.isEmpty()) {
          places.add(Path.of(dir, "ncu"));
        }
      }
    }
    places.add(cudaNcu);
    if (Files.isDirectory(nsightRoot)) {
      try (DirectoryStream<Path> versions = Files.newDirectoryStream(nsightRoot)) {
        List<Path> found = new ArrayList<>();
        versions.forEach(v -> found.add(v.resolve("ncu")));
        found.sort(java.util.Comparator.reverseOrder()); // newest version first
        places.addAll(found);
      } catch (IOException e) {
        places.add(nsightRoot.resolve("*").resolve("ncu"));
      }
    } else {
      places.add(nsightRoot.resolve("*").resolve("ncu"));
    }
    return places;
  }

  static Optional<Path> find(List<Path> candidates) {
    return candidates.stream().filter(p -> Files.isRegularFile(p) && Files.isExecutable(p)).findFirst();
  }

  /** The ncu command line: raw counters of every busload_ entry point, base units, clocks left alone. */
  static List<String> command(Path ncu, Path log, Path harness, Path fatbin, Path plan) {
    return List.of(ncu.toString(), "--csv", "--print-units", "base", "--clock-control", "none",
        "--kernel-name", "regex:^busload_", "--metrics", String.join(",", ProfileReport.METRICS),
        "--log-file", log.toString(), harness.toString(), fatbin.toString(), plan.toString(), "--once");
  }

  /**
   * Why {@code deviceId} cannot be profiled here (no ncu, no harness, not a GPU), or empty when it can: checked
   * before a profiled run is accepted, so that a run asked to count is never measured without counters.
   */
  public static Optional<String> unavailable(String deviceId, Path harness) {
    List<Path> candidates = ncuCandidates(System.getenv("PATH"), CUDA_NCU, NSIGHT_ROOT);
    if (find(candidates).isEmpty()) {
      return Optional.of("profile: ncu not found (looked in " + String.join(", ", candidates.stream()
          .map(Path::toString).toList()) + ")");
    }
    if (harness == null || !Files.isExecutable(harness)) {
      return Optional.of("profile: no native harness " + (harness == null ? "given" : harness + " is not executable")
          + " (--harness or BUSLOAD_HARNESS: build deploy/gpu/crosscheck.cu with "
          + "`nvcc -O2 -arch=native -o crosscheck deploy/gpu/crosscheck.cu -lcuda -lcublas`)");
    }
    if (!deviceId.startsWith("cuda:")) {
      return Optional.of("profile: " + deviceId + " is not a CUDA device; ncu profiles GPUs only");
    }
    return Optional.empty();
  }

  /** {@code --harness}, else {@code BUSLOAD_HARNESS}, else none. */
  public static Path harness(Path given) {
    String env = System.getenv("BUSLOAD_HARNESS");
    return given != null ? given : env != null && !env.isBlank() ? Path.of(env) : null;
  }

  /**
   * Profiles {@code plan} on {@code deviceId} ({@code cuda:N}) and prints the report to {@code out}; problems go
   * to {@code out} too, as lines starting {@code profile:}. Returns whether a report was printed.
   *
   * @param keep where the plan, the fatbin, ncu's CSV and its console stay afterwards; null: a temporary folder
   */
  public static boolean run(Plan plan, String deviceId, Path harness, Path keep, PrintWriter out) {
    Optional<ProfileReport.Report> report = profile(plan, deviceId, harness, keep, out);
    report.ifPresent(r -> ProfileReport.print(r, out));
    out.flush();
    return report.isPresent();
  }

  /**
   * Profiles {@code plan} on {@code deviceId} ({@code cuda:N}) and returns the report, unprinted; what ncu was
   * run with and any problem go to {@code out} as lines starting {@code profile:}. Empty when nothing was profiled.
   */
  public static Optional<ProfileReport.Report> profile(Plan plan, String deviceId, Path harness, Path keep,
      PrintWriter out) {
    Optional<String> unavailable = unavailable(deviceId, harness);
    if (unavailable.isPresent()) {
      out.println(unavailable.get());
      out.flush();
      return Optional.empty();
    }
    Path ncu = find(ncuCandidates(System.getenv("PATH"), CUDA_NCU, NSIGHT_ROOT)).orElseThrow();
    Path dir = null;
    try {
      dir = keep != null ? Files.createDirectories(keep) : Files.createTempDirectory("busload-profile");
      Path fatbin = Files.write(dir.resolve("busload.fatbin"), Fatbin.bytes());
      Path planFile = Files.writeString(dir.resolve("plan.txt"), PlanFile.write(plan, deviceId));
      Path log = dir.resolve("ncu.csv");
      Path console = dir.resolve("console.txt");
      ProcessBuilder builder = new ProcessBuilder(command(ncu, log, harness, fatbin, planFile))
          .redirectErrorStream(true).redirectOutput(console.toFile());
      Map<String, String> env = builder.environment();
      env.put("CUDA_VISIBLE_DEVICES", deviceId.substring("cuda:".length())); // the harness uses device 0
      out.println("profile: " + String.join(" ", builder.command()) + " (one launch of each case; clocks not locked)");
      out.flush();
      Process process = builder.start();
      if (!process.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        out.println("profile: ncu did not finish within " + TIMEOUT_MINUTES + " minutes");
        return Optional.empty();
      }
      if (process.exitValue() != 0 || !Files.exists(log)) {
        out.println("profile: ncu exited " + process.exitValue() + ": " + tail(console) + (Files.exists(log)
            ? " | " + tail(log) : ""));
        return Optional.empty();
      }
      return Optional.of(ProfileReport.build(plan, NcuCsv.parse(Files.readString(log))));
    } catch (IOException | RuntimeException e) {
      out.println("profile: " + e);
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      out.println("profile: interrupted");
      return Optional.empty();
    } finally {
      out.flush();
      if (keep == null) {
        deleteQuietly(dir);
      }
    }
  }

  private static String tail(Path file) {
    try {
      List<String> lines = Files.readAllLines(file);
      return String.join(" / ", lines.subList(Math.max(0, lines.size() - 8), lines.size()));
    } catch (IOException e) {
      return "(" + file + " unreadable: " + e.getMessage() + ")";
    }
  }

  private static void deleteQuietly(Path dir) {
    if (dir == null) {
      return;
    }
    try (var files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temporary directory left behind is no failure of the profile
    }
  }
}
