package io.busload.agent.report;

import io.busload.protocol.KernelResult;
import java.util.List;
import java.util.Optional;

/**
 * The two ceilings every bandwidth is shown against (issue 3): the memcpy-d2d row measured in the same run and
 * the device's theoretical peak. Computed here from the results, so protocol's KernelResult stays as it is.
 */
public record Ceilings(Optional<Double> memcpy, double peak) {
  static final String MEMCPY = "memcpy-d2d";

  public static Ceilings of(List<KernelResult> results) {
    Optional<Double> memcpy = results.stream().filter(r -> r.kernel().equals(MEMCPY) && r.valid())
        .map(KernelResult::bandwidth).findFirst();
    double peak = results.isEmpty() ? 0 : results.getFirst().device().theoreticalPeakBytesPerSecond();
    return new Ceilings(memcpy, peak);
  }

  /** Fraction of the memcpy bandwidth, or empty without a valid memcpy row or for an invalid result. */
  public Optional<Double> ofMemcpy(KernelResult r) {
    return r.valid() ? memcpy.map(c -> r.bandwidth() / c) : Optional.empty();
  }

  /** Fraction of the theoretical peak, or empty when it is unknown (a CPU) or the result is invalid. */
  public Optional<Double> ofPeak(KernelResult r) {
    return r.valid() && peak > 0 ? Optional.of(r.bandwidth() / peak) : Optional.empty();
  }
}
