package io.busload.agent.measure;

import io.busload.agent.device.Device;
import io.busload.agent.device.DeviceException;
import io.busload.agent.device.Workload;
import io.busload.kernels.Check;
import io.busload.kernels.KernelCase;
import io.busload.kernels.RandomFloats;
import io.busload.kernels.Traffic;
import io.busload.protocol.KernelResult;
import io.busload.protocol.Protocol;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The one measurement pipeline; runs on the device's worker thread (every device call blocks). */
public final class Measurement {
  private static final Logger LOG = LoggerFactory.getLogger(Measurement.class);
  /** Warm-up lasts at least this many sample targets and this many launches. */
  static final int WARMUP_SAMPLES = 20;
  static final int MIN_WARMUP_LAUNCHES = 20;
  static final int MAX_LAUNCHES_PER_SAMPLE = 1 << 20;

  private final Device device;
  private final RunContext context;
  private final String fatbinHash;
  private final StoppingRule stoppingRule;
  private final SecureRandom seeds = new SecureRandom();

  public Measurement(Device device, RunContext context, String fatbinHash) {
    this(device, context, fatbinHash, StoppingRule.standard(device.timeCapSeconds()));
  }

  public Measurement(Device device, RunContext context, String fatbinHash, StoppingRule stoppingRule) {
    this.device = device;
    this.context = context;
    this.fatbinHash = fatbinHash;
    this.stoppingRule = stoppingRule;
  }

  /** Every case of the plan in order; a failing case yields an invalid result and the next one runs. */
  public List<KernelResult> run(Plan plan, Progress progress) {
    List<KernelResult> results = new ArrayList<>();
    int total = plan.cases().size();
    for (KernelCase kernel : plan.cases()) {
      progress.starting(kernel.spec().name(), results.size(), total);
      KernelResult result = measure(plan.suite(), kernel, plan.elements());
      results.add(result);
      progress.measured(result, results.size(), total);
    }
    return results;
  }

  /** Allocate, fill, poison, run once and check, warm up, sample until the rule stops, summarise, free. */
  public KernelResult measure(String suite, KernelCase kernel, long elements) {
    Traffic traffic = kernel.traffic(elements);
    RandomFloats input = new RandomFloats(seeds.nextLong());
    try (Workload workload = device.prepare(kernel, elements, input)) {
      workload.timeBatch(1);
      Check check = kernel.check(input, workload.readOutput(), elements);
      if (!check.passed()) {
        List<String> mismatches = new ArrayList<>(check.mismatches());
        mismatches.add(check.mismatchCount() + " of " + check.checked() + " elements differ");
        return invalid(suite, kernel, elements, traffic, mismatches);
      }

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

      int warmedUp = 2 + warmupLaunches + calibrationLaunches; // checked launch, probe, warm-up, calibration
      String method = "warm-up " + warmedUp + " launches; " + samples.size() + " samples of " + launches
          + " launches " + device.timerDescription() + "; median; stopped at " + stopReason
          + "; bytes = useful read + written";
      return result(suite, kernel, elements, traffic, true, List.of(), samples, launches, warmedUp, method);
    } catch (RuntimeException e) {
      // One kernel fails (a CUDA error, memory the device does not have); the run carries on.
      String why = e instanceof DeviceException ? e.getMessage() : e.toString();
      LOG.warn("{} on {} failed: {}", kernel, device.shortId(), why);
      return invalid(suite, kernel, elements, traffic, List.of(why));
    }
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
    params.put("elements", elements);
    Double bandwidth = valid && median > 0 ? traffic.bytes() / median : null;
    return new KernelResult(Protocol.SCHEMA_VERSION, UUID.randomUUID(), context.runId(), context.sweepId(),
        context.agentId(), context.agentVersion(), fatbinHash, device.info(), suite, kernel.spec().name(), params,
        valid, mismatches, median, min, max, spread, samples, launches, warmup, traffic.bytesRead(),
        traffic.bytesWritten(), traffic.bytes(), bandwidth, method, Instant.now());
  }
}
