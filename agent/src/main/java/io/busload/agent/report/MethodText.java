package io.busload.agent.report;

import io.busload.agent.device.DeviceConditions;
import io.busload.agent.measure.StoppingRule;
import io.busload.kernels.Sizes;
import io.busload.protocol.CacheResidency;
import io.busload.protocol.Clocks;
import io.busload.protocol.Energy;
import io.busload.protocol.KernelResult;
import io.busload.protocol.ResultStatus;
import io.busload.protocol.Sampling;
import io.busload.protocol.Topology;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A result's {@code method} sentence, written from its typed fields (the facts travel as fields; this is
 * only their words). The wording of the parts older readers parse is kept: {@code GPU before: sm N MHz, mem N MHz}
 * (analysis' Conditions) and {@code % of memcpy-d2d in this run}.
 */
public final class MethodText {
  private MethodText() {}

  /** Why a case was not run: {@code skipped: REASON} or {@code unavailable: REASON}, as results always said. */
  public static String notRun(ResultStatus status, String reason) {
    return switch (status) {
      case SKIPPED -> "skipped: " + reason;
      case UNAVAILABLE -> "unavailable: " + reason;
      default -> throw new IllegalArgumentException("status: " + status + " is not a case that was not run");
    };
  }

  /** A failed case has no timing; its mismatches say what failed. */
  public static String failed(ResultStatus status) {
    return switch (status) {
      case CHECK_FAILED -> "no timing: the output check failed";
      case DEVICE_FAILED -> "no timing: a device call failed";
      default -> throw new IllegalArgumentException("status: " + status + " is not a failure");
    };
  }

  /**
   * How a measured result was obtained.
   *
   * @param timer how a sample is timed ({@code Device.timerDescription})
   * @param ceiling the memcpy bandwidth of this run, or null (not measured yet, or this is the memcpy)
   * @param bytesCounted how the program counts its bytes ({@code Program.bytesCounted})
   * @param hostLink whether the bytes cross the host link, whose ceiling is the PCIe link, not the memory's peak
   * @param peer the other GPU a peer copy crosses to ({@code Program.peerDevice}); -1 for none
   * @param directions the link directions the counted bytes cross at once ({@code Program.linkDirections})
   */
  public static String measured(KernelResult r, String timer, StoppingRule rule, Double ceiling, DeviceConditions before,
      DeviceConditions after, String bytesCounted, boolean hostLink, int peer, int directions) {
    Sampling s = r.sampling();
    List<String> parts = new ArrayList<>();
    parts.add("warm-up " + r.warmupLaunches() + " launches");
    parts.add(r.samples().size() + " samples of " + r.launchesPerSample() + " launches " + timer);
    parts.add(holds(s));
    if (!s.othersBusy().isEmpty()) {
      parts.add("measured while " + String.join(", ", s.othersBusy()) + " measured too");
    }
    parts.add("median; stopped at " + rule.describe(s.stopReason()) + "; bytes = " + bytesCounted);
    if (ceiling != null && r.bandwidth() != null) {
      parts.add(String.format(Locale.ROOT, "%.1f%% of memcpy-d2d in this run", 100 * r.bandwidth() / ceiling));
    }
    double peak = r.device().theoreticalPeakBytesPerSecond();
    if ((hostLink || peer >= 0) && r.bandwidth() != null) {
      // A link's ceiling is the link's rate, over as many directions as the bytes cross, never the memory's.
      parts.add(linkShare(r, hostLink, peer, directions));
    } else if (peak > 0 && r.bandwidth() != null) {
      parts.add(String.format(Locale.ROOT, "%.1f%% of theoretical peak", 100 * r.bandwidth() / peak));
    }
    if (!r.samples().isEmpty() && r.relativeSpread() > rule.maxSpread()) {
      parts.add(String.format(Locale.ROOT, "WARNING: spread %.2f%% above %.2f%%", 100 * r.relativeSpread(),
          100 * rule.maxSpread()));
    }
    parts.add(clocks(s.clocks()));
    String cache = cache(s.cache());
    if (cache != null) {
      parts.add(cache);
    }
    parts.add("GPU before: " + before.text() + "; after: " + after.text());
    String warning = DeviceConditions.warning(before, after);
    if (warning != null) {
      parts.add(warning);
    }
    return String.join("; ", parts);
  }

  /**
   * The bandwidth against its link: the PCIe link for a host copy, the pair's NVLinks (links x rate) or this GPU's
   * PCIe link for a peer copy; both directions' rate when the bytes cross both. Says why when no rate is known.
   */
  static String linkShare(KernelResult r, boolean hostLink, int peer, int directions) {
    Topology topology = r.device().topology();
    String ways = directions == 2 ? "both ways" : "each way";
    if (topology == null) {
      return "no link ceiling: the host's topology was not read";
    }
    String pcie = String.format(Locale.ROOT, "PCIe gen%d x%d", topology.pcieGeneration(), topology.pcieWidth());
    if (peer >= 0) {
      Topology.Peer pair = topology.peers().stream().filter(p -> p.ordinal() == peer).findFirst().orElse(null);
      if (pair == null) {
        return "no link ceiling: cuda:" + peer + " is not in this GPU's topology";
      }
      if (pair.nvlinks() > 0) {
        String capability = r.device().computeCapability();
        double rate = topology.nvlinkBytesPerSecond(peer, capability, directions);
        if (rate == 0) {
          return "no link ceiling: " + pair.nvlinks() + " NVLinks to cuda:" + peer + ", at a rate not known for compute"
              + " capability " + capability;
        }
        return String.format(Locale.ROOT, "%.1f%% of the %d NVLinks' %.1f GB/s %s to cuda:%d (%d x %.0f GB/s each way)",
            100 * r.bandwidth() / rate, pair.nvlinks(), rate / 1e9, ways, peer, pair.nvlinks(),
            Topology.nvlinkBytesPerSecondPerLink(capability) / 1e9);
      }
      if (!"pcie".equals(pair.link()) || topology.pcieBytesPerSecond() == 0) {
        return "no link ceiling: the link to cuda:" + peer + " is " + pair.link()
            + (pair.detail().isEmpty() ? "" : " (" + pair.detail() + ")");
      }
    } else if (!hostLink || topology.pcieBytesPerSecond() == 0) {
      return "no link ceiling: this GPU's PCIe link was not read";
    }
    double rate = topology.pcieBytesPerSecond() * directions;
    return String.format(Locale.ROOT, "%.1f%% of the %s link's %.1f GB/s %s", 100 * r.bandwidth() / rate, pcie,
        rate / 1e9, ways);
  }

  /** {@code 30 held, 0 unheld, 0 re-timed without the hold after it timed out}. */
  static String holds(Sampling s) {
    return s.heldSamples() + " held, " + s.unheldSamples() + " unheld, " + s.retimedSamples()
        + " re-timed without the hold after it timed out";
  }

  /** The clocks read during sampling, or why none were. */
  public static String clocks(Clocks c) {
    return switch (c.reading()) {
      case UNAVAILABLE -> "clocks: none on this device (" + c.note() + ")";
      case NOT_READ -> "clocks: not read (" + c.note() + ")";
      case READ -> "clocks after each sample (" + c.note() + "): sm " + range(c.smMinMHz(), c.smMaxMHz())
          + " MHz, mem " + range(c.memMinMHz(), c.memMaxMHz()) + " MHz, throttle reasons 0x"
          + Long.toHexString(c.throttleReasons())
          + (c.throttleReasons() == 0 ? "" : " (" + String.join(", ", Clocks.reasonNames(c.throttleReasons())) + ")")
          + ", " + c.throttledSamplesDropped() + " samples dropped while throttled"
          + (c.tooFewCleanSamples() ? ", WARNING: too few clean samples left" : "");
    };
  }

  /**
   * The energy window in words: joules, watts, the window and its launches, the counter's step; or "not read" and
   * why. Never a 0 for a reading that was not taken.
   */
  public static String energy(Energy e, String notRead, String source) {
    if (e == null) {
      return "energy: not read (" + notRead + ")";
    }
    return String.format(Locale.ROOT, "energy (%s, total-energy counter): %.3f J over %.3f s of %d launches after the"
        + " samples, %.1f W average, %s idle before the first launch; the counter stepped %d times (every %.0f ms)", source,
        e.joules(), e.windowSeconds(), e.launches(), e.averageWatts(),
        e.idleWatts() == null ? "not read" : String.format(Locale.ROOT, "%.1f W", e.idleWatts()), e.counterSteps(),
        1e3 * e.counterPeriodSeconds());
  }

  /** The L2 verdict in words, or null when the working set is well above L2. */
  public static String cache(CacheResidency c) {
    String sizes = "working set " + Sizes.bytes(c.workingSetBytes()) + " under " + CacheResidency.FACTOR + " x L2 ("
        + Sizes.bytes(c.l2Bytes()) + ")";
    return switch (c.residency()) {
      case ABOVE_L2 -> null;
      case L2_UNKNOWN -> "L2 size unknown: not compared with the working set";
      case CACHE_RESIDENT -> "WARNING: cache-resident, " + sizes + ": this may be L2 bandwidth, not memory's";
      case CACHE_STUDY -> "cache study (asked for), " + sizes;
    };
  }

  private static String range(Integer min, Integer max) {
    return min.equals(max) ? min.toString() : min + "-" + max;
  }
}
