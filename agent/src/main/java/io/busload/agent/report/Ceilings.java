package io.busload.agent.report;

import io.busload.protocol.KernelResult;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The two ceilings every bandwidth is shown against: the measured ceiling of the
 * run and the device's theoretical peak. Computed here from the results, so protocol's KernelResult stays as it is.
 *
 * <p>The measured ceiling is the best bandwidth of any valid result of the same run, the memcpy-d2d row included
 * (it runs first in every suite). memcpy alone was no ceiling: it moves bytes in a 1:1 read/write mix, and kernels
 * whose traffic is mostly reads beat it on an H100 and an H200 (gather-sorted 2:1, reduction-shuffle read-only; ncu
 * counted those mixes, docs/design/ceilings.md). Taking the best of the run makes every fraction at most 1 and
 * names the kernel that set the ceiling, so a reader sees which access pattern reached it.
 *
 * @param measured the measured ceiling in bytes/s, empty when the run has no valid result
 * @param measuredBy the kernel and params that set it, empty with it
 */
public record Ceilings(Optional<Double> measured, Optional<String> measuredBy, double peak) {
  /** How every printer, the REST API and the dashboard name it. */
  public static final String NAME = "measured ceiling";
  static final String MEMCPY = "memcpy-d2d";

  /** The ceilings of one run's results; no measured ceiling unless the run has a valid memcpy-d2d. */
  public static Ceilings of(List<KernelResult> results) {
    boolean memcpy = results.stream().anyMatch(r -> r.kernel().equals(MEMCPY) && r.valid() && r.bandwidth() != null);
    Optional<KernelResult> best = results.stream().filter(r -> memcpy && r.valid() && r.bandwidth() != null)
        .max(Comparator.comparingDouble(KernelResult::bandwidth));
    double peak = results.isEmpty() ? 0 : results.getFirst().device().theoreticalPeakBytesPerSecond();
    return new Ceilings(best.map(KernelResult::bandwidth),
        best.map(r -> r.kernel() + " " + CsvPrinter.params(r.params())), peak);
  }

  /** Fraction of the measured ceiling (at most 1), or empty for an invalid result. */
  public Optional<Double> ofMeasured(KernelResult r) {
    return r.valid() && r.bandwidth() != null ? measured.map(c -> r.bandwidth() / c) : Optional.empty();
  }

  /** Fraction of the theoretical peak, or empty when it is unknown (a CPU) or the result is invalid. */
  public Optional<Double> ofPeak(KernelResult r) {
    return r.valid() && r.bandwidth() != null && peak > 0 ? Optional.of(r.bandwidth() / peak) : Optional.empty();
  }
}
