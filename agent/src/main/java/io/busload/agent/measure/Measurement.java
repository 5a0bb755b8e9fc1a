package io.busload.agent.measure;

import io.busload.agent.device.Device;
import io.busload.agent.device.DeviceException;
import io.busload.agent.device.Workload;
import io.busload.agent.device.Conditions;
import io.busload.agent.device.UnavailableException;
import io.busload.kernels.Catalog;
import io.busload.kernels.Check;
import io.busload.kernels.KernelCase;
import io.busload.kernels.Program;
import io.busload.kernels.Traffic;
import io.busload.protocol.KernelResult;
import io.busload.protocol.Protocol;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The one measurement pipeline; runs on the device's worker thread (every device call blocks). */
public final class Measurement {
  private static final Logger LOG = LoggerFactory.getLogger(Measurement.class);
  /**
   * Warm-up lasts at least this many sample targets and this many launches. Three, not twenty: at twenty the
   * 0.28 s naive matmul spent 5.5 s warming up on an H200, a tenth of the suite's 90 s budget (issue 3).
   */
  static final int WARMUP_SAMPLES = 10;
  static final int MIN_WARMUP_LAUNCHES = 3;
  static final int MAX_LAUNCHES_PER_SAMPLE = 1 << 20;

  private final Device device;
  private final RunContext context;
  private final String fatbinHash;
  private final StoppingRule stoppingRule;
  /** Why this process can no longer use the device (a sticky error recovery could not undo); null while it can. */
  private String deviceLost;
  /** The memcpy ceiling's bandwidth in this run, once measured (it runs first). */
  private Double ceiling;

  public Measurement(Device device, RunContext context, String fatbinHash) {
    this(device, context, fatbinHash, StoppingRule.standard(device.timeCapSeconds()));
  }

  public Measurement(Device device, RunContext context, String fatbinHash, StoppingRule stoppingRule) {
    this.device = device;
    this.context = context;
    this.fatbinHash = fatbinHash;
    this.stoppingRule = stoppingRule;
  }

  /**
   * Runs the cases from {@code fromCase} on in a fresh process, after a sticky CUDA error left this one unable
   * to use the GPU (NVIDIA: the process must be restarted; an in-process context reset failed on an H200,
   * docs/results/2026-11-22-h200-faults). Returns their results in plan order.
   */
  @FunctionalInterface
  public interface Continuation {
    List<KernelResult> run(int fromCase) throws Exception;
  }

  /** Every case of the plan in order; a failing case yields an invalid result and the next one runs. */
  public List<KernelResult> run(Plan plan, Progress progress) {
    return run(plan, progress, null);
  }

  /** As {@link #run(Plan, Progress)}; after a device loss the rest goes to {@code continuation} when given. */
  public List<KernelResult> run(Plan plan, Progress progress, Continuation continuation) {
    List<KernelResult> results = new ArrayList<>();
    int total = plan.cases().size();
    for (Plan.Planned planned : plan.cases()) {
      progress.starting(planned.kernelCase().spec().name(), results.size(), total);
      KernelResult result = measure(plan.suite(), planned);
      if (result.kernel().equals(Catalog.MEMCPY_D2D.name()) && result.valid()) {
        ceiling = result.bandwidth();
      }
      results.add(result);
      progress.measured(result, results.size(), total);
      if (deviceLost != null && results.size() < total) {
        List<KernelResult> rest = continueElsewhere(plan, results.size(), continuation);
        for (KernelResult r : rest) {
          results.add(r);
          progress.measured(r, results.size(), total);
        }
        break;
      }
    }
    return results;
  }

  private List<KernelResult> continueElsewhere(Plan plan, int fromCase, Continuation continuation) {
    String why = "not run here: " + device.shortId() + " was lost in this process (" + deviceLost + ")";
    if (continuation != null) {
      try {
        LOG.warn("{}; running cases {}..{} in a fresh process", why, fromCase + 1, plan.cases().size());
        List<KernelResult> rest = continuation.run(fromCase);
        if (rest.size() == plan.cases().size() - fromCase) {
          return rest;
        }
        why += "; the fresh process returned " + rest.size() + " of " + (plan.cases().size() - fromCase) + " results";
      } catch (Exception e) {
        why += "; the fresh process failed: " + e.getMessage();
      }
    }
    List<KernelResult> rest = new ArrayList<>();
    for (Plan.Planned planned : plan.cases().subList(fromCase, plan.cases().size())) {
      rest.add(planned.program() == null
          ? skipped(plan.suite(), planned.kernelCase(), planned.size(), "skipped: " + planned.skipReason())
          : invalid(plan.suite(), planned.kernelCase(), planned.size(), planned.program().traffic(), List.of(why)));
    }
    return rest;
  }

  /** Allocate, fill, poison, run once and check, warm up, sample until the rule stops, summarise, free. */
  public KernelResult measure(String suite, Plan.Planned planned) {
    KernelCase kernel = planned.kernelCase();
    if (planned.program() == null) {
      return skipped(suite, kernel, planned.size(), "skipped: " + planned.skipReason());
    }
    Program program = planned.program();
    Traffic traffic = program.traffic();
    // nvidia-smi takes a while to answer: read the "before" state while the buffers are allocated and filled.
    java.util.concurrent.CompletableFuture<Conditions> reading =
        java.util.concurrent.CompletableFuture.supplyAsync(device::conditions);
    try (Workload workload = device.prepare(program)) {
      workload.timeBatch(1);
      Check check = program.check(workload.download());
      if (!check.passed()) {
        List<String> mismatches = new ArrayList<>(check.mismatches());
        mismatches.add(check.mismatchCount() + " of " + check.checked() + " elements differ");
        return invalid(suite, kernel, planned.size(), traffic, mismatches);
      }

      Conditions before = reading.join();
      double probe = workload.timeBatch(1);
      int warmupLaunches = launchesFor(WARMUP_SAMPLES * device.sampleTargetSeconds(), probe, MIN_WARMUP_LAUNCHES);
      double warmup = workload.timeBatch(warmupLaunches);
      int launches = launchesFor(device.sampleTargetSeconds(), warmup / warmupLaunches, 1);
      // The warm-up average includes the first, slow launches (JIT on a CPU, clocks ramping on a GPU):
      // time a batch at the calibrated size and resize it until one batch lasts at least the target.
      int calibrationLaunches = 0;
      for (int round = 0; round < 3; round++) {
        double batch = workload.timeBatch(launches);
        calibrationLaunches += launches;
        if (batch >= device.sampleTargetSeconds()) {
          break;
        }
        launches = launchesFor(device.sampleTargetSeconds(), batch / launches, launches);
      }

      List<Double> samples = new ArrayList<>();
      long start = System.nanoTime();
      String stopReason;
      do {
        samples.add(workload.timeBatch(launches) / launches);
        stopReason = stoppingRule.stopReason(samples, (System.nanoTime() - start) / 1e9);
      } while (stopReason == null);
      Conditions after = device.conditions();

      int warmedUp = 2 + warmupLaunches + calibrationLaunches; // checked launch, probe, warm-up, calibration
      StringBuilder method = new StringBuilder("warm-up " + warmedUp + " launches; " + samples.size() + " samples of "
          + launches + " launches " + device.timerDescription() + "; median; stopped at " + stopReason
          + "; bytes = " + program.bytesCounted());
      double median = StoppingRule.median(samples);
      double bandwidth = traffic.bytes() / median;
      if (ceiling != null && !kernel.spec().name().equals(Catalog.MEMCPY_D2D.name())) {
        method.append(String.format(Locale.ROOT, "; %.1f%% of memcpy-d2d in this run", 100 * bandwidth / ceiling));
      }
      io.busload.protocol.Topology topology = device.info().topology();
      boolean hostLink = program.buffers().stream().anyMatch(b -> b.memory().onHost());
      if (hostLink && topology != null && topology.pcieBytesPerSecond() > 0) {
        // Issue 14: a host link's ceiling is its PCIe link, not the memory's peak.
        method.append(String.format(Locale.ROOT, "; %.1f%% of the PCIe gen%d x%d link's %.1f GB/s each way",
            100 * bandwidth / topology.pcieBytesPerSecond(), topology.pcieGeneration(), topology.pcieWidth(),
            topology.pcieBytesPerSecond() / 1e9));
      } else if (device.info().theoreticalPeakBytesPerSecond() > 0) {
        method.append(String.format(Locale.ROOT, "; %.1f%% of theoretical peak",
            100 * bandwidth / device.info().theoreticalPeakBytesPerSecond()));
      }
      if (StoppingRule.spread(samples) > stoppingRule.maxSpread()) {
        method.append(String.format(Locale.ROOT, "; WARNING: spread %.2f%% above %.2f%%",
            100 * StoppingRule.spread(samples), 100 * stoppingRule.maxSpread()));
      }
      method.append("; GPU before: ").append(before.text()).append("; after: ").append(after.text());
      String warning = Conditions.warning(before, after);
      if (warning != null) {
        method.append("; ").append(warning);
      }
      return result(suite, kernel, planned.size(), traffic, true, List.of(), samples, launches, warmedUp,
          method.toString());
    } catch (UnavailableException e) {
      return skipped(suite, kernel, planned.size(), "unavailable: " + e.getMessage());
    } catch (RuntimeException e) {
      // One kernel fails (a CUDA error, memory the device does not have); the run carries on.
      String why = e instanceof DeviceException ? e.getMessage() : e.toString();
      LOG.warn("{} on {} failed: {}", kernel, device.shortId(), why);
      List<String> reasons = new ArrayList<>(List.of(why));
      if (e instanceof DeviceException d) {
        try {
          String recovered = device.recover(d);
          if (recovered != null) {
            reasons.add(recovered);
          }
        } catch (RuntimeException r) {
          reasons.add("recovering the device failed too: " + r.getMessage());
          deviceLost = why;
        }
      }
      return invalid(suite, kernel, planned.size(), traffic, reasons);
    }
  }

  /** Whether a result is a skipped or unavailable case rather than a failure (its method says so). */
  public static boolean skipped(KernelResult result) {
    return !result.valid() && (result.method().startsWith("skipped: ") || result.method().startsWith("unavailable: "));
  }

  private KernelResult skipped(String suite, KernelCase kernel, long size, String reason) {
    LOG.info("{} on {}: {}", kernel, device.shortId(), reason);
    return result(suite, kernel, size, new Traffic(0, 0, 0), false, List.of(reason), List.of(), 0, 0, reason);
  }

  /** Launches so that a batch lasts at least {@code targetSeconds}, given one launch took {@code perLaunch}. */
  static int launchesFor(double targetSeconds, double perLaunch, int minimum) {
    if (!(perLaunch > 0)) {
      return Math.max(minimum, 1);
    }
    double launches = Math.ceil(targetSeconds / perLaunch);
    return (int) Math.max(minimum, Math.min(MAX_LAUNCHES_PER_SAMPLE, launches));
  }

  private KernelResult invalid(String suite, KernelCase kernel, long elements, Traffic traffic, List<String> why) {
    return result(suite, kernel, elements, traffic, false, why, List.of(), 0, 0,
        "no timing: the output check or a device call failed");
  }

  private KernelResult result(String suite, KernelCase kernel, long elements, Traffic traffic, boolean valid,
      List<String> mismatches, List<Double> samples, int launches, int warmup, String method) {
    double median = samples.isEmpty() ? 0 : StoppingRule.median(samples);
    double min = samples.isEmpty() ? 0 : Collections.min(samples);
    double max = samples.isEmpty() ? 0 : Collections.max(samples);
    double spread = samples.isEmpty() ? 0 : StoppingRule.spread(samples);
    Map<String, Object> params = new LinkedHashMap<>(kernel.params());
    params.put("size", elements);
    Double bandwidth = valid && median > 0 ? traffic.bytes() / median : null;
    return new KernelResult(Protocol.SCHEMA_VERSION, UUID.randomUUID(), context.runId(), context.sweepId(),
        context.agentId(), context.agentVersion(), fatbinHash, device.info(), suite, kernel.spec().name(), params,
        valid, mismatches, median, min, max, spread, samples, launches, warmup, traffic.bytesRead(),
        traffic.bytesWritten(), traffic.bytes(), bandwidth, method, Instant.now());
  }
}
