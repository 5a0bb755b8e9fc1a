package io.busload.agent.report;

import io.busload.protocol.KernelResult;
import io.busload.protocol.ResultCsv;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A table for people: GB/s and the fraction of the run's measured ceiling ({@link Ceilings}), then how each
 * number was measured. Invalid rows show their first mismatches instead of a speed.
 */
public final class TablePrinter implements ResultPrinter {
  private static final String ROW = "%-20s %-28s %-6s %12s %10s %9s %8s %8s %12s %9s %9s%n";

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
    Ceilings ceilings = Ceilings.of(results);
    ceilings.measured().ifPresent(c -> out.printf(Locale.ROOT, "%s: %.1f GB/s (%s)%n", Ceilings.NAME, c / 1e9,
        ceilings.measuredBy().orElseThrow()));
    out.println(RunHealth.line(results));
    out.println();
    out.printf(Locale.ROOT, ROW, "kernel", "params", "valid", "median us", "GB/s", "of ceil.", "of peak", "spread",
        "samples", "J/GB", "GB/s/W");
    for (KernelResult r : results) {
      if (r.valid()) {
        out.printf(Locale.ROOT, ROW, r.kernel(), CsvPrinter.params(r.params()), "yes",
            String.format(Locale.ROOT, "%.2f", r.medianSeconds() * 1e6),
            String.format(Locale.ROOT, "%.1f", r.bandwidth() / 1e9), percent(ceilings.ofMeasured(r)),
            percent(ceilings.ofPeak(r)), String.format(Locale.ROOT, "%.2f%%", r.relativeSpread() * 100),
            r.samples().size() + "x" + r.launchesPerSample(), joulesPerGigabyte(r), perWatt(r));
        flags(r).forEach(flag -> out.println("    " + flag));
      } else if (r.status().notRun()) {
        out.printf(Locale.ROOT, ROW, r.kernel(), CsvPrinter.params(r.params()), "skip", "-", "-", "-", "-", "-", "-", "-",
            "-");
        out.println("    " + r.method());
      } else {
        out.printf(Locale.ROOT, ROW, r.kernel(), CsvPrinter.params(r.params()), "NO", "-", "-", "-", "-", "-", "-", "-",
            "-");
        for (String mismatch : r.mismatches()) {
          out.println("    " + mismatch);
        }
      }
    }
    out.println();
    out.println("GB/s = 1e9 bytes/s of useful bytes read + written per launch / median seconds per launch;");
    out.println("of ceil. = fraction of the " + Ceilings.NAME + ": the best bandwidth of this run, memcpy-d2d included");
    out.println("(read-heavy kernels beat memcpy's 1:1 mix); of peak = fraction of the theoretical peak (memory");
    out.println("clock x bus width x 2); skip = skipped or unavailable on this device. J/GB = joules the GPU drew");
    out.println("per 1e9 useful bytes over the energy window after the samples; GB/s/W = GB/s over that window's");
    out.println("average watts; not read = no energy counter here (the method says why).");
    printPercentOfCublas(results, out);
    out.println("method:");
    for (KernelResult r : results) {
      if (!r.status().notRun()) {
        out.printf("  %s %s: %s%n", r.kernel(), CsvPrinter.params(r.params()), r.method());
      }
    }
    out.flush();
  }

  /** What a reader must see beside a speed: the L2 verdict, and throttling that left too few samples. */
  static List<String> flags(KernelResult r) {
    List<String> flags = new java.util.ArrayList<>();
    if (r.sampling() == null) {
      return flags;
    }
    if (r.sampling().cache().underL2()) {
      flags.add(MethodText.cache(r.sampling().cache()));
    }
    if (r.sampling().clocks().tooFewCleanSamples() || r.sampling().clocks().throttledSamplesDropped() > 0) {
      flags.add(MethodText.clocks(r.sampling().clocks()));
    }
    return flags;
  }

  static String joulesPerGigabyte(KernelResult r) {
    if (r.energy() == null) {
      return ResultCsv.NOT_READ;
    }
    Double perGigabyte = r.energy().joulesPerGigabyte(r.bytes());
    return perGigabyte == null ? "-" : String.format(Locale.ROOT, "%.3f", perGigabyte);
  }

  static String perWatt(KernelResult r) {
    Double perWatt = r.energy() == null ? null : r.energy().gigabytesPerSecondPerWatt(r.bandwidth());
    return perWatt == null ? ResultCsv.NOT_READ : String.format(Locale.ROOT, "%.2f", perWatt);
  }

  private static String percent(Optional<Double> fraction) {
    return fraction.map(f -> String.format(Locale.ROOT, "%.1f%%", 100 * f)).orElse("-");
  }

  /** Each matmul variant as a percentage of cuBLAS on the same device at the same size. */
  private static void printPercentOfCublas(List<KernelResult> results, PrintWriter out) {
    var rows = io.busload.kernels.matmul.PercentOfCublas.of(results.stream()
        .filter(r -> r.kernel().startsWith("matmul-"))
        .map(r -> new io.busload.kernels.matmul.PercentOfCublas.Timed(r.kernel(),
            r.device().id() + " " + CsvPrinter.params(r.params()), r.valid(), r.medianSeconds()))
        .toList());
    if (!rows.isEmpty()) {
      out.println("matmul, % of cuBLAS (100 x cuBLAS time / kernel time, same device and size):");
      io.busload.kernels.matmul.PercentOfCublas.format(rows).forEach(line -> out.println("  " + line));
    }
  }
}
