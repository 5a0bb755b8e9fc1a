package io.busload.agent.report;

import io.busload.protocol.KernelResult;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A table for people: GB/s and the fraction of the memcpy ceiling measured in the same run, then how each
 * number was measured. Invalid rows show their first mismatches instead of a speed.
 */
public final class TablePrinter implements ResultPrinter {
  static final String CEILING = "memcpy-d2d";
  private static final String ROW = "%-18s %-30s %-6s %12s %10s %9s %8s %12s%n";

  @Override
  public void print(List<KernelResult> results, PrintWriter out) {
    if (results.isEmpty()) {
      out.println("no results");
      out.flush();
      return;
    }
    KernelResult first = results.getFirst();
    out.printf(Locale.ROOT, "device: %s (%s)%n", first.device().name(), first.device().id());
    if (first.device().theoreticalPeakBytesPerSecond() > 0) {
      out.printf(Locale.ROOT, "theoretical peak: %.1f GB/s (memory clock x bus width x 2)%n",
          first.device().theoreticalPeakBytesPerSecond() / 1e9);
    }
    Optional<Double> ceiling = results.stream().filter(r -> r.kernel().equals(CEILING) && r.valid())
        .map(KernelResult::bandwidth).findFirst();
    out.println();
    out.printf(Locale.ROOT, ROW, "kernel", "params", "valid", "median us", "GB/s", "of memcpy", "spread", "samples");
    for (KernelResult r : results) {
      if (r.valid()) {
        String fraction = ceiling.map(c -> String.format(Locale.ROOT, "%.1f%%", 100 * r.bandwidth() / c)).orElse("-");
        out.printf(Locale.ROOT, ROW, r.kernel(), CsvPrinter.params(r.params()), "yes",
            String.format(Locale.ROOT, "%.2f", r.medianSeconds() * 1e6),
            String.format(Locale.ROOT, "%.1f", r.bandwidth() / 1e9), fraction,
            String.format(Locale.ROOT, "%.2f%%", r.relativeSpread() * 100),
            r.samples().size() + "x" + r.launchesPerSample());
      } else {
        out.printf(Locale.ROOT, ROW, r.kernel(), CsvPrinter.params(r.params()), "NO", "-", "-", "-", "-", "-");
        for (String mismatch : r.mismatches()) {
          out.println("    " + mismatch);
        }
      }
    }
    out.println();
    out.println("GB/s = 1e9 bytes/s of useful bytes read + written per launch / median seconds per launch;");
    out.println("of memcpy = fraction of the memcpy-d2d bandwidth measured in this run.");
    out.println("method:");
    for (KernelResult r : results) {
      out.printf("  %s %s: %s%n", r.kernel(), CsvPrinter.params(r.params()), r.method());
    }
    out.flush();
  }
}
