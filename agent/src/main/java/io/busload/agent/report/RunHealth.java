package io.busload.agent.report;

import io.busload.analysis.health.HealthCounts;
import io.busload.analysis.health.HealthInputs;
import io.busload.analysis.health.HealthRules;
import io.busload.analysis.health.HealthVerdict;
import io.busload.analysis.health.MemcpyFloor;
import io.busload.protocol.Clocks;
import io.busload.protocol.HealthCounters;
import io.busload.protocol.KernelResult;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The health verdict of one device's run as {@code ./busload run} prints it: the same rules the coordinator applies
 * (docs/design/health.md), with the memcpy floor from a published figure for the model, since one host is no
 * fleet.
 */
public final class RunHealth {
  private RunHealth() {}

  /** The verdict of {@code results} (one device's run); empty when no result carries NVML health. */
  public static Optional<HealthVerdict> of(List<KernelResult> results) {
    Optional<KernelResult> last = results.stream().filter(r -> r.health() != null)
        .max(Comparator.comparing(KernelResult::measuredAt));
    if (last.isEmpty()) {
      return Optional.empty();
    }
    KernelResult r = last.get();
    Double memcpy = results.stream().filter(x -> x.kernel().equals(Ceilings.MEMCPY) && x.valid()
        && x.bandwidth() != null && x.device().theoreticalPeakBytesPerSecond() > 0)
        .map(x -> x.bandwidth() / x.device().theoreticalPeakBytesPerSecond()).reduce((a, b) -> b).orElse(null);
    List<Long> reasons = results.stream().map(x -> x.sampling() == null ? null : x.sampling().clocks())
        .filter(c -> c != null && c.reading() == Clocks.Reading.READ && c.throttleReasons() != null)
        .map(Clocks::throttleReasons).toList();
    return Optional.of(HealthRules.judge(HealthInputs.ofRun(counts(r.health().atRunStart()),
        counts(r.health().afterCase()), r.health().xids(), memcpy, MemcpyFloor.of(r.device().name(), List.of()),
        reasons, Clocks.BENIGN_REASONS)));
  }

  /** The line the table prints: the verdict with its reasons, or why health was not read. */
  public static String line(List<KernelResult> results) {
    return of(results).map(v -> "health: " + v.sentence())
        .orElse("health: not read (no NVML health counters on this device)");
  }

  private static HealthCounts counts(HealthCounters c) {
    return new HealthCounts(c.eccVolatileCorrected(), c.eccVolatileUncorrected(), c.eccAggregateCorrected(),
        c.eccAggregateUncorrected(), c.retiredPagesSingleBit(), c.retiredPagesDoubleBit(), c.retiredPagesPending(),
        c.remappedRowsCorrectable(), c.remappedRowsUncorrectable(), c.remapPending(), c.remapFailure(),
        c.pcieReplays());
  }
}
