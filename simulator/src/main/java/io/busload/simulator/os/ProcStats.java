package io.busload.simulator.os;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * CPU time and resident memory of a process, from {@code /proc}. Linux only, as the fleet is.
 *
 * @param cpuSeconds user plus system time since the process started
 * @param rssBytes resident set size now
 */
public record ProcStats(double cpuSeconds, long rssBytes) {
  /** Clock ticks per second ({@code getconf CLK_TCK}); 100 on every Linux this runs on. */
  private static final double TICKS = 100.0;

  /** The process's figures, or empty once it has exited. */
  public static Optional<ProcStats> of(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      // The command name (field 2) may hold spaces: fields are counted after its closing parenthesis.
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      double cpu = (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / TICKS;
      long rss = 0;
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith("VmRSS:")) {
          rss = Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
      return Optional.of(new ProcStats(cpu, rss));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** Summed over {@code pids}; processes that exited count nothing. */
  public static ProcStats sum(List<Long> pids) {
    double cpu = 0;
    long rss = 0;
    for (long pid : pids) {
      Optional<ProcStats> stats = of(pid);
      if (stats.isPresent()) {
        cpu += stats.get().cpuSeconds();
        rss += stats.get().rssBytes();
      }
    }
    return new ProcStats(cpu, rss);
  }

  /** The one-minute load average of the machine, for recording the load a figure was taken under. */
  public static double loadAverage() {
    try {
      return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
    } catch (IOException | RuntimeException e) {
      return Double.NaN;
    }
  }

  /** Direct children of {@code parent} (field 4 of {@code /proc/PID/stat}). */
  public static List<Long> children(long parent) {
    try (var dirs = Files.list(Path.of("/proc"))) {
      return dirs.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit))
          .filter(p -> {
            try {
              String stat = Files.readString(p.resolve("stat"));
              return Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[1]) == parent;
            } catch (IOException | RuntimeException e) {
              return false;
            }
          })
          .map(p -> Long.parseLong(p.getFileName().toString())).toList();
    } catch (IOException e) {
      return List.of();
    }
  }
}
