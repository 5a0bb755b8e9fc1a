package io.busload.coordinator.fleet;

import io.busload.analysis.health.HealthState;
import io.busload.kernels.Catalog;
import io.busload.kernels.Family;
import io.busload.kernels.KernelSpec;
import io.busload.protocol.EnvNumbers;
import io.busload.protocol.KernelResult;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The newest results as Prometheus gauges, so that a lab's Grafana shows Busload's figures beside dcgm-exporter's:
 * per device and kernel family the newest bandwidth and its fraction of the run's measured ceiling, and per device
 * its standing against its cohort. docs/metrics.md lists them with their labels.
 *
 * <p>Cardinality is bounded by construction: the families are the catalog's (a result of a kernel the catalog does
 * not name is left out, so a pushed result cannot add a label value), and at most {@code maxDevices} devices are
 * exposed, the first ones seen; a device past the cap is counted in {@link #LEFT_OUT} and named once in a WARN, and
 * its figures stay in the REST API and the dashboard. The figures come from the results this coordinator stores,
 * as they are stored, so a scrape costs no query; a starting coordinator first reads back each device's newest run
 * that timed memcpy-d2d ({@link #seed}), so a restart leaves no gap until the next sweep, and the Grafana dashboard
 * takes the highest value over the coordinators scraped.
 *
 * <p>Fed on the event loop; read by scrapes from any thread, hence the concurrent maps and volatile fields.
 */
public final class ResultGauges {
  private static final Logger LOG = LoggerFactory.getLogger(ResultGauges.class);
  public static final String BANDWIDTH = "busload_device_bandwidth_bytes_per_second";
  public static final String FRACTION = "busload_device_fraction_of_ceiling";
  public static final String COHORT_FLAGS = "busload_device_cohort_flags";
  public static final String HEALTH = "busload_device_health_state";
  public static final String LEFT_OUT = "busload_device_metrics_left_out";
  /**
   * The setting of the cap on devices exposed, and its default: with the catalog's 10 measuring families, at most
   * 2,000 × (10 × 2 + 2) = 44,000 series.
   */
  public static final String MAX_DEVICES_SETTING = "BUSLOAD_METRICS_MAX_DEVICES";
  public static final int DEFAULT_MAX_DEVICES = 2_000;
  /** The runs of one device whose ceilings are kept: results of an older run still arriving find theirs. */
  private static final int RUNS_KEPT = 4;

  private static final Map<String, String> FAMILY_OF_KERNEL = familiesOfKernels();

  private final MeterRegistry registry;
  private final int maxDevices;
  private final Map<String, DeviceFigures> devices = new ConcurrentHashMap<>();
  private final Set<String> leftOut = ConcurrentHashMap.newKeySet();
  private final Map<String, Gauge> cohortGauges = new ConcurrentHashMap<>();

  public ResultGauges(MeterRegistry registry, int maxDevices) {
    if (maxDevices < 1) {
      throw new IllegalArgumentException(MAX_DEVICES_SETTING + ": at least 1, got " + maxDevices);
    }
    this.registry = registry;
    this.maxDevices = maxDevices;
    Gauge.builder(LEFT_OUT, leftOut, Set::size)
        .description("devices seen but not exposed as gauges, past " + MAX_DEVICES_SETTING).register(registry);
  }

  /** The cap from {@link #MAX_DEVICES_SETTING} in {@code env}, or its default; a value not a number names it. */
  public static int maxDevices(Map<String, String> env) {
    return EnvNumbers.wholeNumber(env, MAX_DEVICES_SETTING, DEFAULT_MAX_DEVICES, "a whole number");
  }

  /** The catalog family of a kernel, or null for the memcpy ceiling and kernels the catalog does not name. */
  public static String family(String kernel) {
    return FAMILY_OF_KERNEL.get(kernel);
  }

  /** Results just stored, in any order. */
  public void stored(Collection<KernelResult> results) {
    for (KernelResult r : results) {
      if (!r.valid() || r.bandwidth() == null || r.device() == null) {
        continue;
      }
      add(new Figure(r.device().id(), r.runId() != null ? r.runId() : "sweep:" + r.sweepId(), r.kernel(),
          r.bandwidth(), r.measuredAt()));
    }
  }

  /**
   * What a gauge needs of one valid result: its device, its run (or {@code sweep:ID} for a run-less one), its kernel,
   * its bandwidth in bytes per second and when it was measured.
   */
  public record Figure(String deviceId, String run, String kernel, double bandwidth, Instant measuredAt) {}

  /**
   * Figures read back from the store when the coordinator starts ({@code ResultStore#newestRunFigures}), so that a
   * restart does not empty the gauges until the next sweep; results stored since count as they arrive, and the
   * newer of the two wins as it does between results.
   */
  public void seed(Collection<Figure> figures) {
    figures.forEach(this::add);
  }

  private void add(Figure f) {
    String family = family(f.kernel());
    boolean ceiling = Catalog.MEMCPY_D2D.name().equals(f.kernel());
    if (family == null && !ceiling) {
      return;
    }
    DeviceFigures device = device(f.deviceId());
    if (device == null) {
      return;
    }
    RunCeiling runCeiling = device.ceiling(f.run());
    runCeiling.add(f.bandwidth(), ceiling);
    if (family != null) {
      device.family(family).add(runCeiling, f.bandwidth(), f.measuredAt());
    }
  }

  /**
   * The cohort check as it stands: {@code flagsByDevice} counts each device's kernel cases flagged outside its
   * cohort, {@code measured} names every device the check had a figure for. A device it no longer has a figure for
   * loses its gauge: no state is better than a stale one.
   */
  public void cohort(Set<String> measured, Map<String, Long> flagsByDevice) {
    for (String deviceId : measured) {
      DeviceFigures device = device(deviceId);
      if (device != null) {
        device.flags = flagsByDevice.getOrDefault(deviceId, 0L);
        cohortGauges.computeIfAbsent(deviceId, id -> Gauge.builder(COHORT_FLAGS, device, d -> d.flags)
            .tag("device", id)
            .description("kernel cases on which the device lies outside its cohort (same model and driver): 0 is"
                + " within it; the device's health state")
            .register(registry));
      }
    }
    for (var e : Map.copyOf(cohortGauges).entrySet()) {
      if (!measured.contains(e.getKey())) {
        registry.remove((Meter) e.getValue());
        cohortGauges.remove(e.getKey());
      }
    }
  }

  /**
   * A device's health verdict as it stands (docs/design/health.md): 0 HEALTHY, 1 DEGRADED, 2 FAILED, so that an alert
   * is {@code busload_device_health_state > 0}. Fed with every verdict the coordinator stores, and at start with the
   * stored ones.
   */
  public void health(String deviceId, HealthState state) {
    health(deviceId, state, true);
  }

  /** A stored verdict read back at start: it gives way to any verdict that came in meanwhile. */
  public void seedHealth(String deviceId, HealthState state) {
    health(deviceId, state, false);
  }

  private void health(String deviceId, HealthState state, boolean fresh) {
    DeviceFigures device = device(deviceId);
    if (device == null || !fresh && device.health >= 0) {
      return;
    }
    boolean first = device.health < 0;
    device.health = state.ordinal();
    if (first) {
      Gauge.builder(HEALTH, device, d -> d.health).tag("device", deviceId)
          .description("the device's health verdict from its error counters, memcpy floor and throttling: 0 HEALTHY,"
              + " 1 DEGRADED, 2 FAILED")
          .register(registry);
    }
  }

  private DeviceFigures device(String id) {
    DeviceFigures known = devices.get(id);
    if (known != null) {
      return known;
    }
    if (devices.size() >= maxDevices) {
      if (leftOut.add(id) && leftOut.size() == 1) {
        LOG.warn("device {} and any further ones are left out of /metrics: {} devices are exposed, the cap {}"
            + " (their figures stay in the REST API and the dashboard)", id, maxDevices, MAX_DEVICES_SETTING);
      }
      return null;
    }
    return devices.computeIfAbsent(id, DeviceFigures::new);
  }

  /** The measured ceiling of one run: the best valid bandwidth in it, counted only once it timed memcpy-d2d. */
  private static final class RunCeiling {
    private volatile double best;
    private volatile boolean memcpy;

    void add(double bandwidth, boolean isMemcpy) {
      best = Math.max(best, bandwidth);
      memcpy |= isMemcpy;
    }

    double value() {
      return memcpy && best > 0 ? best : Double.NaN;
    }
  }

  /** One family's newest figure on one device: the best of the family's cases in the newest run that measured it. */
  private static final class FamilyFigure {
    private volatile RunCeiling run;
    private volatile double bandwidth = Double.NaN;
    private volatile Instant measuredAt = Instant.MIN;

    void add(RunCeiling from, double value, Instant at) {
      if (from == run) {
        bandwidth = Math.max(bandwidth, value);
        measuredAt = at.isAfter(measuredAt) ? at : measuredAt;
      } else if (!at.isBefore(measuredAt)) {
        run = from;
        bandwidth = value;
        measuredAt = at;
      }
    }

    double fraction() {
      RunCeiling r = run;
      return r == null ? Double.NaN : bandwidth / r.value();
    }
  }

  private final class DeviceFigures {
    private final String id;
    private final Map<String, FamilyFigure> families = new ConcurrentHashMap<>();
    private final Map<String, RunCeiling> runs = new LinkedHashMap<>(8, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<String, RunCeiling> eldest) {
        return size() > RUNS_KEPT;
      }
    };
    private volatile long flags;
    /** The health verdict's ordinal; -1 until one is known, and then a gauge exists. */
    private volatile int health = -1;

    DeviceFigures(String id) {
      this.id = id;
    }

    RunCeiling ceiling(String run) {
      synchronized (runs) {
        return runs.computeIfAbsent(run, r -> new RunCeiling());
      }
    }

    FamilyFigure family(String family) {
      return families.computeIfAbsent(family, f -> {
        FamilyFigure figure = new FamilyFigure();
        Gauge.builder(BANDWIDTH, figure, x -> x.bandwidth).tag("device", id).tag("family", f)
            .description("best valid bandwidth of the family's cases in the newest run that measured it, bytes/s")
            .register(registry);
        Gauge.builder(FRACTION, figure, FamilyFigure::fraction).tag("device", id).tag("family", f)
            .description("that bandwidth over its run's measured ceiling (the best valid bandwidth of a run that timed"
                + " memcpy-d2d); NaN when the run timed none")
            .register(registry);
        return figure;
      });
    }
  }

  private static Map<String, String> familiesOfKernels() {
    Map<String, String> map = new HashMap<>();
    for (Family family : Catalog.families()) {
      if (!family.inCoalescingSuite()) {
        continue;
      }
      for (KernelSpec spec : family.kernels()) {
        map.put(spec.name(), spec.family());
      }
    }
    return Map.copyOf(map);
  }
}
