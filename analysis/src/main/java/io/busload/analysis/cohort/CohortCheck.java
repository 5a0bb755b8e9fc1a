package io.busload.analysis.cohort;

import io.busload.analysis.Words;
import io.busload.analysis.stats.Robust;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Each device against its peers: for every kernel case, the other devices of its cohort (same model and driver)
 * give a median and a robust band, {@code max(zCut * 1.4826 * MAD, minRelativeBand * median)}; a device outside
 * it is flagged. The device itself is left out of its own band (leave one out), so one sick card cannot widen the
 * band that should catch it. The relative floor is there because healthy cards of one model differ by a percent
 * or two in memory bandwidth; a flag should mean a card to look at.
 */
public final class CohortCheck {

  /**
   * @param minPeers fewest other devices with a figure for the case (fewer: no band, no flag)
   * @param zCut robust sigmas of the band
   * @param minRelativeBand floor of the band, as a fraction of the peers' median
   */
  public record Settings(int minPeers, double zCut, double minRelativeBand) {
    public Settings {
      if (minPeers < 2) {
        throw new IllegalArgumentException("minPeers must be at least 2, was " + minPeers);
      }
    }

    public static Settings defaults() {
      return new Settings(3, 3.5, 0.03);
    }
  }

  /** Clocks closer than this fraction count as the same clocks. */
  static final double SAME_CLOCK = 0.01;

  private final Settings settings;

  public CohortCheck(Settings settings) {
    this.settings = settings;
  }

  public Settings settings() {
    return settings;
  }

  /** Every device outside its cohort's band, worst first. One figure per device and case (the first one wins). */
  public List<CohortFlag> flags(Collection<DeviceFigure> figures) {
    Map<String, Map<String, DeviceFigure>> byCase = new LinkedHashMap<>();
    for (DeviceFigure f : figures) {
      byCase.computeIfAbsent(f.cohort() + "\n" + f.series(), k -> new LinkedHashMap<>()).putIfAbsent(f.deviceId(), f);
    }
    List<CohortFlag> flags = new ArrayList<>();
    for (Map<String, DeviceFigure> devices : byCase.values()) {
      for (DeviceFigure device : devices.values()) {
        List<DeviceFigure> peers = devices.values().stream().filter(p -> p != device).toList();
        if (peers.size() < settings.minPeers()) {
          continue;
        }
        double[] values = peers.stream().mapToDouble(DeviceFigure::value).toArray();
        double median = Robust.median(values);
        if (median <= 0) {
          continue;
        }
        double band = Math.max(settings.zCut() * Robust.sigma(values), settings.minRelativeBand() * median);
        double delta = device.value() - median;
        if (Math.abs(delta) <= band) {
          continue;
        }
        Boolean sameClocks = sameClocks(device, peers);
        double relative = delta / median;
        flags.add(new CohortFlag(device.deviceId(), device.deviceName(), device.driver(), device.series(),
            device.kernel(), device.value(), median, relative, band / median, peers.size(), sameClocks,
            sentence(device, peers, relative, sameClocks)));
      }
    }
    flags.sort(Comparator.comparingDouble((CohortFlag f) -> f.relative()));
    return flags;
  }

  private static Boolean sameClocks(DeviceFigure device, List<DeviceFigure> peers) {
    Double sm = peerMedian(peers, DeviceFigure::smMHz);
    Double mem = peerMedian(peers, DeviceFigure::memMHz);
    if (device.smMHz() == null || device.memMHz() == null || sm == null || mem == null) {
      return null;
    }
    return Math.abs(device.smMHz() - sm) <= SAME_CLOCK * sm && Math.abs(device.memMHz() - mem) <= SAME_CLOCK * mem;
  }

  private static Double peerMedian(List<DeviceFigure> peers, java.util.function.Function<DeviceFigure, Double> clock) {
    double[] values = peers.stream().map(clock).filter(Objects::nonNull).mapToDouble(Double::doubleValue).toArray();
    return values.length == 0 ? null : Robust.median(values);
  }

  private static String sentence(DeviceFigure device, List<DeviceFigure> peers, double relative, Boolean sameClocks) {
    String clocks;
    if (sameClocks == null) {
      clocks = "clocks not recorded";
    } else if (sameClocks) {
      clocks = "at the same clocks";
    } else {
      Double sm = peerMedian(peers, DeviceFigure::smMHz);
      Double mem = peerMedian(peers, DeviceFigure::memMHz);
      clocks = "at other clocks (SM " + Words.mhz(device.smMHz()) + " vs " + Words.mhz(sm) + ", memory "
          + Words.mhz(device.memMHz()) + " vs " + Words.mhz(mem) + ")";
    }
    String params = device.series().startsWith(device.kernel()) ? device.series().substring(device.kernel().length())
        .strip() : "";
    return "this " + Words.model(device.deviceName()) + " is " + Words.percent(relative) + (relative < 0 ? " below"
        : " above") + " its " + peers.size() + " peer" + (peers.size() == 1 ? "" : "s") + " on " + device.kernel()
        + (params.isEmpty() ? "" : " (" + params + ")") + ", " + clocks;
  }
}
