package io.busload.simulator.membership;

import java.io.PrintStream;
import java.util.List;

/**
 * What a membership run measured and how each cost grows, with the command that reproduces it.
 *
 * @param extrapolateTo member counts at which the fits are read (1,000 agents and more), labelled as fits
 */
public record MembershipReport(String command, String startedAt, List<SizeFigures> sizes, List<Fit> fits,
    List<Integer> extrapolateTo) {

  public static MembershipReport of(String command, String startedAt, List<SizeFigures> sizes, List<Integer> at) {
    return new MembershipReport(command, startedAt, sizes, Fit.all(sizes), at);
  }

  /** Markdown: the measured table, then the fits and what they say at larger N. */
  public void print(PrintStream out) {
    out.println("# Hazelcast membership cost (busload simulate membership)");
    out.println();
    out.println("Command: `" + command + "`, started " + startedAt + ".");
    out.println();
    out.println("| N | connections | per member | idle traffic B/s | per member B/s | CPU cores | per member "
        + "| RSS MiB (median) | heap MiB (median) | data member cores | data member RSS MiB | join s | join seen by all s | departure seen s (median / max) "
        + "| window s | load avg |");
    out.println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (SizeFigures s : sizes) {
      out.printf("| %d | %d | %.1f | %.0f | %.0f | %.3f | %.4f | %.0f | %.1f | %.3f | %.0f | %.2f | %.2f | %.2f / %.2f "
          + "| %.0f | %.2f |%n",
          s.members(), s.connections(), s.connectionsPerMember(), s.bytesPerSecond(), s.bytesPerSecondPerMember(),
          s.cpuCores(), s.cpuCoresPerMember(), s.rssBytesMedian() / 1048576.0, s.heapBytesMedian() / 1048576.0,
          s.seedCpuCores(), s.seedRssBytes() / 1048576.0, s.joinSeconds(), s.joinSeenByAllSeconds(), s.departureSeenMedianSeconds(), s.departureSeenMaxSeconds(),
          s.windowSeconds(), s.loadAverage());
    }
    out.println();
    sizes.stream().map(SizeFigures::trafficSource).distinct()
        .forEach(source -> out.println("Idle traffic counted by " + source + "."));
    out.println();
    out.println("Fits y = a * N^b (least squares on log-log); values at larger N are extrapolations of the fit:");
    out.println();
    StringBuilder header = new StringBuilder("| cost | unit | a | b | R^2 | points |");
    StringBuilder rule = new StringBuilder("|---|---|---|---|---|---|");
    for (int n : extrapolateTo) {
      header.append(" fit at N=").append(n).append(" |");
      rule.append("---|");
    }
    out.println(header);
    out.println(rule);
    for (Fit f : fits) {
      StringBuilder row = new StringBuilder(String.format("| %s | %s | %.4g | %.2f | %.3f | %d |", f.metric(), f.unit(),
          f.a(), f.b(), f.r2(), f.points()));
      for (int n : extrapolateTo) {
        row.append(String.format(" %.4g |", f.at(n)));
      }
      out.println(row);
    }
  }
}
