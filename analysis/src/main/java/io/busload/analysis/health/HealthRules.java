package io.busload.analysis.health;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * The rules that turn one run's {@link HealthInputs} into a {@link HealthVerdict}; docs/design/health.md says why
 * each threshold is where it is. A counter not read is never taken for 0: its rule is skipped and it is named in
 * the verdict's {@code notRead}.
 */
public final class HealthRules {
  /** PCIe replays the run may add before the link is called degraded: any, as a clean link replays none. */
  public static final long PCIE_REPLAYS = 1;
  /** Of the run's timed cases, the share that must have throttled for the throttling to count as persisting. */
  public static final double THROTTLE_SHARE = 0.5;
  /** And at least this many cases, so that a run of two cases, one throttled, is not judged on one. */
  public static final int THROTTLE_MIN_CASES = 3;

  /** NVML's names of its clock event reasons, by bit (the benign ones included, for the words only). */
  private static final String[] REASON_NAMES = {"gpu idle", "applications clocks setting", "sw power cap",
      "hw slowdown", "sync boost", "sw thermal slowdown", "hw thermal slowdown", "hw power brake slowdown",
      "display clock setting"};

  private HealthRules() {}

  /** The verdict of one run. */
  public static HealthVerdict judge(HealthInputs in) {
    List<HealthReason> reasons = new ArrayList<>();
    List<String> notRead = new ArrayList<>();
    HealthCounts a = in.atRunStart();
    HealthCounts b = in.atRunEnd();

    Long uncorrected = b.eccVolatileUncorrected();
    Long uncorrectedGrowth = growth(a, b, HealthCounts::eccVolatileUncorrected);
    Long aggregateUncorrected = b.eccAggregateUncorrected();
    if (uncorrected == null && aggregateUncorrected == null) {
      notRead.add("uncorrected ECC errors");
    }
    if (uncorrected != null && uncorrected > 0) {
      reasons.add(new HealthReason(HealthReason.Kind.ECC_UNCORRECTED, HealthState.FAILED, uncorrected,
          uncorrected + " uncorrected ECC error(s) since the driver loaded"
          + (uncorrectedGrowth != null && uncorrectedGrowth > 0 ? ", " + uncorrectedGrowth + " during this run" : "")));
    } else if (aggregateUncorrected != null && aggregateUncorrected > 0) {
      reasons.add(new HealthReason(HealthReason.Kind.ECC_UNCORRECTED_HISTORY, HealthState.DEGRADED,
          aggregateUncorrected, aggregateUncorrected + " uncorrected ECC error(s) over the GPU's life, none since the"
          + " driver loaded"));
    }
    if (Boolean.TRUE.equals(b.remapFailure())) {
      reasons.add(new HealthReason(HealthReason.Kind.REMAP_FAILED, HealthState.FAILED, 1,
          "a row remap failed: no spare rows are left"));
    }
    if (in.xids() == null) {
      notRead.add("XID events");
    } else if (!in.xids().isEmpty()) {
      reasons.add(new HealthReason(HealthReason.Kind.XID, HealthState.FAILED, in.xids().size(),
          in.xids().size() + " XID critical error(s) during the run: XID " + String.join(", ",
              in.xids().stream().map(String::valueOf).toList())));
    }

    Long corrected = growth(a, b, HealthCounts::eccVolatileCorrected);
    if (corrected == null) {
      notRead.add("corrected ECC errors");
    } else if (corrected > 0) {
      reasons.add(new HealthReason(HealthReason.Kind.ECC_CORRECTED_GROWTH, HealthState.DEGRADED, corrected,
          corrected + " corrected ECC error(s) during the run"));
    }
    boolean remapsRead = b.remapPending() != null;
    boolean retiredRead = b.retiredPagesPending() != null;
    if (!remapsRead && !retiredRead) {
      notRead.add("remapped rows and retired pages");
    }
    if (Boolean.TRUE.equals(b.remapPending())) {
      reasons.add(new HealthReason(HealthReason.Kind.REPAIR_PENDING, HealthState.DEGRADED, 1,
          "a row remap waits for the next GPU reset"));
    }
    if (Boolean.TRUE.equals(b.retiredPagesPending())) {
      reasons.add(new HealthReason(HealthReason.Kind.REPAIR_PENDING, HealthState.DEGRADED, 1,
          "a page retirement waits for the next driver load"));
    }
    long repaired = sum(growth(a, b, HealthCounts::remappedRowsCorrectable),
        growth(a, b, HealthCounts::remappedRowsUncorrectable), growth(a, b, HealthCounts::retiredPagesSingleBit),
        growth(a, b, HealthCounts::retiredPagesDoubleBit));
    if (repaired > 0) {
      reasons.add(new HealthReason(HealthReason.Kind.REPAIR_GROWTH, HealthState.DEGRADED, repaired,
          repaired + " row(s) remapped or page(s) retired during the run"));
    }
    Long replays = growth(a, b, HealthCounts::pcieReplays);
    if (replays == null) {
      notRead.add("PCIe replays");
    } else if (replays >= PCIE_REPLAYS) {
      reasons.add(new HealthReason(HealthReason.Kind.PCIE_REPLAYS, HealthState.DEGRADED, replays,
          replays + " PCIe replay(s) during the run"));
    }

    if (in.memcpyFraction() == null) {
      notRead.add("memcpy bandwidth");
    } else if (in.floor() == null) {
      notRead.add("a memcpy floor for this model");
    } else if (in.memcpyFraction() < in.floor().fraction()) {
      reasons.add(new HealthReason(HealthReason.Kind.BANDWIDTH_BELOW_FLOOR, HealthState.DEGRADED, in.memcpyFraction(),
          String.format(Locale.ROOT, "memcpy reached %.1f%% of peak, below the floor of %.1f%% (%s%s)",
              in.memcpyFraction() * 100, in.floor().fraction() * 100, in.floor().source(),
              in.floor().published() ? ", published" : "")));
    }

    if (in.timedCases() == 0) {
      notRead.add("clock event reasons");
    } else if (in.throttledCases() >= THROTTLE_MIN_CASES
        && in.throttledCases() >= THROTTLE_SHARE * in.timedCases()) {
      reasons.add(new HealthReason(HealthReason.Kind.THROTTLE_PERSISTS, HealthState.DEGRADED,
          (double) in.throttledCases() / in.timedCases(), "throttled in " + in.throttledCases() + " of "
          + in.timedCases() + " timed cases (" + String.join(", ", reasonNames(in.throttleReasons())) + ")"));
    }

    reasons.sort(Comparator.comparing(HealthReason::state).reversed());
    HealthState state = reasons.stream().map(HealthReason::state).reduce(HealthState.HEALTHY, HealthState::worst);
    return new HealthVerdict(state, reasons, notRead);
  }

  /**
   * How much a counter grew over the run; null unless read both times. Volatile counters restart at 0 when the driver
   * reloads, so a counter found lower at the end counts from that restart.
   */
  static Long growth(HealthCounts start, HealthCounts end, Function<HealthCounts, Long> counter) {
    Long a = counter.apply(start);
    Long b = counter.apply(end);
    if (a == null || b == null) {
      return null;
    }
    return b >= a ? b - a : b;
  }

  private static long sum(Long... values) {
    long total = 0;
    for (Long v : values) {
      total += v == null ? 0 : v;
    }
    return total;
  }

  /** NVML's names of the bits set in {@code reasons}; unknown bits as hex. */
  static List<String> reasonNames(long reasons) {
    List<String> names = new ArrayList<>();
    for (int bit = 0; bit < 64; bit++) {
      if ((reasons & (1L << bit)) != 0) {
        names.add(bit < REASON_NAMES.length ? REASON_NAMES[bit] : "0x" + Long.toHexString(1L << bit));
      }
    }
    return names.isEmpty() ? List.of("reasons differing between cases") : names;
  }
}
