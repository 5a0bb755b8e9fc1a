package io.busload.agent.measure;

import io.busload.agent.device.DeviceConditions;
import io.busload.agent.device.Device;
import io.busload.agent.device.DeviceException;
import io.busload.agent.device.HealthSensor;
import io.busload.agent.device.HostActivity;
import io.busload.agent.device.UnavailableException;
import io.busload.agent.device.Workload;
import io.busload.agent.report.MethodText;
import io.busload.kernels.Buffer;
import io.busload.kernels.Catalog;
import io.busload.kernels.Check;
import io.busload.kernels.Program;
import io.busload.kernels.Traffic;
import io.busload.protocol.Health;
import io.busload.protocol.HealthCounters;
import io.busload.protocol.KernelResult;
import io.busload.protocol.ResultStatus;
import io.busload.protocol.Sampling;
import java.lang.foreign.MemorySegment;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one measurement pipeline; runs on the device's worker thread (every device call blocks). Each case is a short
 * recipe ({@link #measure}); the samples are taken by {@link Sampler}; results are typed (status, how the
 * samples were held, stop reason, clocks, L2) and {@link MethodText} puts them in words.
 */
public final class Measurement {
  private static final Logger LOG = LoggerFactory.getLogger(Measurement.class);
  /**
   * Warm-up lasts at least this many sample targets and this many launches. Three, not twenty: at twenty the
   * 0.28 s naive matmul spent 5.5 s warming up on an H200, a tenth of the suite's 90 s budget.
   */
  static final int WARMUP_SAMPLES = 10;
  static final int MIN_WARMUP_LAUNCHES = 3;
  static final int MAX_LAUNCHES_PER_SAMPLE = 1 << 20;
  /**
   * The least time between the two energy-counter steps that bound a case's energy window. The counter steps every
   * few tens of milliseconds on a Hopper GPU and the window's ends are seen at most one batch late, so a second
   * holds the error of either end near 1%.
   */
  public static final double ENERGY_WINDOW_SECONDS = 1.0;

  /** Where the device's conditions are read beside the measuring: each read waits on nvidia-smi. */
  private static final java.util.concurrent.ExecutorService CONDITIONS =
      java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor();

  /**
   * Where first-launch checks run beside a GPU's sampling: every core but one, which stays with the device's worker
   * thread as it queues launches. Their parallel parts run here too (a parallel stream runs in the pool it is
   * called from).
   */
  private static final java.util.concurrent.ForkJoinPool CHECKS =
      new java.util.concurrent.ForkJoinPool(Math.max(1, Runtime.getRuntime().availableProcessors() - 1));

  private final Device device;
  private final RunContext context;
  private final String fatbinHash;
  private final StoppingRule stoppingRule;
  /** Why this process can no longer use the device (a sticky error recovery could not undo); null while it can. */
  private String deviceLost;
  /** The memcpy ceiling's bandwidth in this run, once measured (it runs first). */
  private Double ceiling;
  /** The agent's devices, to say which others measured beside this one; alone unless {@link #sharing} says. */
  private HostActivity host = new HostActivity();
  /** The energy window's length; 0 reads no energy. */
  private double energyWindowSeconds = ENERGY_WINDOW_SECONDS;

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

  /** Marks this device busy in {@code host} while a run goes on, and names {@code host}'s other busy devices. */
  public Measurement sharing(HostActivity host) {
    this.host = host;
    return this;
  }

  /** Reads each case's energy over a window of at least {@code seconds} after its samples; 0 reads none. */
  public Measurement energyWindow(double seconds) {
    if (!(seconds >= 0)) {
      throw new IllegalArgumentException("energy window: seconds must be >= 0, not " + seconds);
    }
    this.energyWindowSeconds = seconds;
    return this;
  }

  /** Every case of the plan in order; a failing case yields an invalid result and the next one runs. */
  public List<KernelResult> run(Plan plan, Progress progress) {
    return run(plan, progress, null);
  }

  /** As {@link #run(Plan, Progress)}; after a device loss the rest goes to {@code continuation} when given. */
  public List<KernelResult> run(Plan plan, Progress progress, Continuation continuation) {
    try (HostActivity.Busy busy = host.busy(device.info().id())) {
      return runCases(plan, progress, continuation);
    }
  }

  private List<KernelResult> runCases(Plan plan, Progress progress, Continuation continuation) {
    if (device.timesApartFromHost()) {
      HostRehearsal.start(plan);
    }
    HealthSensor health = device.healthSensor();
    if (!health.reads()) {
      return runCases(plan, progress, continuation, null, null, HealthSensor.NOT_WATCHING);
    }
    // Read before the first case and watched until the last, so the last result carries the whole run's change.
    HealthCounters atStart = health.read();
    try (HealthSensor.XidWatch xids = health.watchXids()) {
      return runCases(plan, progress, continuation, health, atStart, xids);
    }
  }

  private List<KernelResult> runCases(Plan plan, Progress progress, Continuation continuation, HealthSensor health,
      HealthCounters atStart, HealthSensor.XidWatch xids) {
    List<KernelResult> results = new ArrayList<>();
    List<Long> seen = new ArrayList<>();
    int total = plan.cases().size();
    for (Plan.Planned planned : plan.cases()) {
      progress.starting(planned.kernelCase().spec().name(), results.size(), total);
      KernelResult result = measure(plan.suite(), planned);
      if (health != null) {
        seen.addAll(xids.poll());
        result = result.withHealth(new Health(atStart, health.read(), xids.watching() ? seen : null, health.note()));
      }
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
          ? notRun(plan.suite(), planned, ResultStatus.SKIPPED, planned.skipReason())
          : failed(plan.suite(), planned, ResultStatus.DEVICE_FAILED, List.of(why)));
    }
    return rest;
  }

  /**
   * One case, as a recipe: check the first launch's output, warm up and calibrate, sample until the rule stops,
   * summarise. Allocation, input fill and poisoning happen in {@link Device#prepare}; freeing when the workload
   * closes.
   */
  public KernelResult measure(String suite, Plan.Planned planned) {
    if (planned.program() == null) {
      return notRun(suite, planned, ResultStatus.SKIPPED, planned.skipReason());
    }
    // nvidia-smi takes a while to answer: read the "before" state while the buffers are allocated and filled.
    CompletableFuture<DeviceConditions> before = CompletableFuture.supplyAsync(device::conditions, CONDITIONS);
    EnergyWindow energyWindow = energyWindowSeconds > 0
        ? EnergyWindow.startingNow(device.energySensor(), energyWindowSeconds) : null;
    // Closed before the workload, whose host copies go back to the device then: a check still reading them ends first.
    try (CountedWorkload workload = new CountedWorkload(device.prepare(planned.program()));
        PendingCheck pending = new PendingCheck()) {
      // Read once the buffers are filled, before the first launch: the GPU has been idle since the last case.
      Double idleWatts = energyWindow == null ? null : energyWindow.idleWatts();
      List<MemorySegment> first = firstLaunch(workload);
      // On a GPU the first launch's output is checked on the host while the GPU warms up and takes its samples (host
      // memory is not what a case with buffers on the host must share with its check); a failed check discards them.
      boolean beside = device.timesApartFromHost()
          && planned.program().buffers().stream().noneMatch(b -> b.memory().onHost());
      CompletableFuture<Check> checking = pending.start(beside
          ? CompletableFuture.supplyAsync(() -> planned.program().check(first), CHECKS)
          : CompletableFuture.completedFuture(planned.program().check(first)));
      if (!beside && !checking.join().passed()) {
        return failed(suite, planned, ResultStatus.CHECK_FAILED, mismatches(checking.join()));
      }
      Calibration calibration = calibrate(workload);
      HostActivity.Window window = host.window(device.info().id());
      Sampler.Sampled sampled = Sampler.startingNow(stoppingRule, device.clockSensor())
          .sample(workload, calibration.launches(), planned.cache()).beside(window.othersBusy());
      Check check = joined(checking);
      if (!check.passed()) {
        return failed(suite, planned, ResultStatus.CHECK_FAILED, mismatches(check));
      }
      // Read while the output is checked again; nvidia-smi takes tens of milliseconds to answer.
      CompletableFuture<DeviceConditions> after = CompletableFuture.supplyAsync(device::conditions, CONDITIONS);
      // Checked again after the timed launches, so a kernel right only on its first launch fails.
      Check again = checkAgain(workload, planned.program(), first, check);
      if (!again.passed()) {
        return failed(suite, planned, ResultStatus.CHECK_FAILED, mismatchesAfter(again, workload.launches()));
      }
      // After the samples and their check: the energy window's launches change neither.
      DeviceConditions afterConditions = after.join();
      EnergyWindow.Outcome energy = energyWindow == null
          ? EnergyWindow.Outcome.notRead("energy window off")
          : energyWindow.measure(workload, calibration.launches(), idleWatts);
      KernelResult result = measured(suite, planned, calibration, sampled, before.join(), afterConditions);
      return result.withEnergy(energy.energy()).withMethod(result.method() + "; "
          + MethodText.energy(energy.energy(), energy.notRead(), device.energySensor().note()));
    } catch (UnavailableException e) {
      return notRun(suite, planned, ResultStatus.UNAVAILABLE, e.getMessage());
    } catch (RuntimeException e) {
      return failed(suite, planned, ResultStatus.DEVICE_FAILED, recoverFrom(planned, e));
    }
  }

  /** A check that may still run when its case ends early (a device error while sampling); waited for on close. */
  private static final class PendingCheck implements AutoCloseable {
    private CompletableFuture<Check> check;

    CompletableFuture<Check> start(CompletableFuture<Check> started) {
      check = started;
      return started;
    }

    @Override
    public void close() {
      if (check != null) {
        check.exceptionally(t -> null).join();
      }
    }
  }

  /** The check's result, or what it threw as it threw it. */
  private static Check joined(CompletableFuture<Check> checking) {
    try {
      return checking.join();
    } catch (java.util.concurrent.CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw e;
    }
  }

  private static List<MemorySegment> firstLaunch(Workload workload) {
    workload.time(1);
    return workload.download();
  }

  /**
   * The check after {@code workload}'s timed launches. Where no buffer is updated in place and the backend keeps a
   * second host copy, the outputs are compared bit for bit with the first launch's, which passed {@code firstCheck}:
   * the same bytes pass the same check, so only outputs that differ (a kernel right only on its first launch, or
   * one whose result varies from launch to launch, like a scatter whose writes collide) are checked again in full.
   */
  static Check checkAgain(CountedWorkload workload, Program program, List<MemorySegment> first, Check firstCheck) {
    boolean inPlace = program.buffers().stream().anyMatch(b -> b.role() == Buffer.Role.INOUT);
    if (!inPlace) {
      java.util.Optional<List<MemorySegment>> now = workload.downloadApart();
      if (now.isPresent()) {
        return HostCopies.sameOutputs(program.buffers(), first, now.get()) ? firstCheck
            : program.checkAfter(now.get(), workload.launches());
      }
    }
    return program.checkAfter(workload.download(), workload.launches());
  }

  private static List<String> mismatchesAfter(Check check, long launches) {
    List<String> mismatches = new ArrayList<>();
    check.mismatches().forEach(m -> mismatches.add("after " + launches + " launches: " + m));
    mismatches.add(check.mismatchCount() + " of " + check.checked() + " elements differ after " + launches
        + " launches (the first launch's output passed)");
    return mismatches;
  }

  private static List<String> mismatches(Check check) {
    List<String> mismatches = new ArrayList<>(check.mismatches());
    mismatches.add(check.mismatchCount() + " of " + check.checked() + " elements differ");
    return mismatches;
  }

  /**
   * Launches per sample and launches run before the first.
   *
   * @param warmupLaunches every launch before the first sample: the checked one, the probe, warm-up, calibration
   */
  record Calibration(int warmupLaunches, int launches) {}

  /**
   * Warm-up for {@link #WARMUP_SAMPLES} sample targets, then batches resized until one lasts the device's sample
   * target, or holds as many launches as can be held: the warm-up average includes the first, slow launches (JIT on
   * a CPU, clocks ramping on a GPU).
   */
  Calibration calibrate(Workload workload) {
    double target = device.sampleTargetSeconds();
    double probe = workload.time(1).seconds();
    int warmup = launchesFor(WARMUP_SAMPLES * target, probe, MIN_WARMUP_LAUNCHES);
    // A sample no larger than can be held: timed on the GPU alone, even if shorter than the target.
    int held = workload.heldLaunchLimit();
    int launches = Math.min(held, launchesFor(target, workload.time(warmup).seconds() / warmup, 1));
    int calibrationLaunches = 0;
    for (int round = 0; round < 3; round++) {
      double batch = workload.time(launches).seconds();
      calibrationLaunches += launches;
      if (batch >= target || launches >= held) {
        break;
      }
      launches = Math.min(held, launchesFor(target, batch / launches, launches));
    }
    return new Calibration(2 + warmup + calibrationLaunches, launches);
  }

  private KernelResult measured(String suite, Plan.Planned planned, Calibration calibration, Sampler.Sampled sampled,
      DeviceConditions before, DeviceConditions after) {
    KernelResult result = result(suite, planned, planned.program().traffic(), ResultStatus.MEASURED, List.of(),
        sampled.samples(), calibration.launches(), calibration.warmupLaunches(), "", sampled.sampling());
    boolean isCeiling = planned.kernelCase().spec().name().equals(Catalog.MEMCPY_D2D.name());
    boolean hostLink = planned.program().buffers().stream().anyMatch(b -> b.memory().onHost());
    return result.withMethod(MethodText.measured(result, device.timerDescription(), stoppingRule,
        isCeiling ? null : ceiling, before, after, planned.program().bytesCounted(), hostLink,
        planned.program().peerDevice(), planned.program().linkDirections()));
  }

  /** The error that failed a case, and what recovering the device did; marks the device lost when it could not. */
  private List<String> recoverFrom(Plan.Planned planned, RuntimeException e) {
    // One kernel fails (a CUDA error, memory the device does not have); the run carries on.
    String why = e instanceof DeviceException ? e.getMessage() : e.toString();
    LOG.warn("{} on {} failed: {}", planned.kernelCase(), device.shortId(), why);
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
    return reasons;
  }

  /** Launches so that a batch lasts at least {@code targetSeconds}, given one launch took {@code perLaunch}. */
  static int launchesFor(double targetSeconds, double perLaunch, int minimum) {
    if (!(perLaunch > 0)) {
      return Math.max(minimum, 1);
    }
    double launches = Math.ceil(targetSeconds / perLaunch);
    return (int) Math.max(minimum, Math.min(MAX_LAUNCHES_PER_SAMPLE, launches));
  }

  private KernelResult notRun(String suite, Plan.Planned planned, ResultStatus status, String reason) {
    LOG.info("{} on {}: {} ({})", planned.kernelCase(), device.shortId(), status, reason);
    String method = MethodText.notRun(status, reason);
    return result(suite, planned, new Traffic(0, 0, 0), status, List.of(method), List.of(), 0, 0, method, null);
  }

  private KernelResult failed(String suite, Plan.Planned planned, ResultStatus status, List<String> why) {
    Traffic traffic = planned.program() == null ? new Traffic(0, 0, 0) : planned.program().traffic();
    return result(suite, planned, traffic, status, why, List.of(), 0, 0, MethodText.failed(status), null);
  }

  private KernelResult result(String suite, Plan.Planned planned, Traffic traffic, ResultStatus status,
      List<String> mismatches, List<Double> samples, int launches, int warmup, String method, Sampling sampling) {
    boolean valid = status == ResultStatus.MEASURED;
    double median = samples.isEmpty() ? 0 : StoppingRule.median(samples);
    double min = samples.isEmpty() ? 0 : Collections.min(samples);
    double max = samples.isEmpty() ? 0 : Collections.max(samples);
    double spread = samples.isEmpty() ? 0 : StoppingRule.spread(samples);
    Map<String, Object> params = new LinkedHashMap<>(planned.kernelCase().params());
    params.put("size", planned.size());
    Double bandwidth = valid && median > 0 ? traffic.bytes() / median : null;
    return KernelResult.builder().id(UUID.randomUUID()).runId(context.runId()).sweepId(context.sweepId())
        .agentId(context.agentId()).agentVersion(context.agentVersion()).fatbinHash(fatbinHash)
        .device(device.info()).suite(suite).kernel(planned.kernelCase().spec().name()).params(params).valid(valid)
        .mismatches(mismatches).medianSeconds(median).minSeconds(min).maxSeconds(max).relativeSpread(spread)
        .samples(samples).launchesPerSample(launches).warmupLaunches(warmup).bytesRead(traffic.bytesRead())
        .bytesWritten(traffic.bytesWritten()).bytes(traffic.bytes()).bandwidth(bandwidth).method(method)
        .measuredAt(Instant.now()).status(status).sampling(sampling).build();
  }
}
