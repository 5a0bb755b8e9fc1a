package io.busload.agent;

import io.busload.agent.crosscheck.PlanFile;
import io.busload.agent.crosscheck.ProfileCounters;
import io.busload.agent.crosscheck.ProfileReport;
import io.busload.agent.crosscheck.Profiler;
import io.busload.agent.device.Device;
import io.busload.agent.device.DeviceWorker;
import io.busload.agent.device.HostActivity;
import io.busload.agent.device.Devices;
import io.busload.agent.measure.FreshProcess;
import io.busload.agent.measure.Measurement;
import io.busload.agent.measure.Plan;
import io.busload.agent.measure.SamplingMethod;
import io.busload.agent.measure.Progress;
import io.busload.agent.measure.RunContext;
import io.busload.agent.report.ResultPrinter;
import io.busload.agent.report.RunHealth;
import io.busload.kernels.Catalog;
import io.busload.kernels.Fatbin;
import io.busload.kernels.SuiteOptions;
import io.busload.protocol.KernelResult;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Measures one suite on one device, or on several of this host's devices at once, and prints it, with no cluster at
 * all. Exit 1 if any result is invalid or a device could not be used.
 */
@Command(name = "run", mixinStandardHelpOptions = true, description = "Measure a suite on one or more devices and print it.")
final class RunCommand implements Callable<Integer> {
  private static final Logger LOG = LoggerFactory.getLogger(RunCommand.class);

  @Spec
  CommandSpec spec;

  @Option(names = "--suite", required = true, description = "Suite to run: ${COMPLETION-CANDIDATES}",
      completionCandidates = SuiteNames.class)
  String suite;

  @Option(names = "--device", description = "cpu, cuda:N, a comma-separated list of them, or all (every GPU, else "
      + "the CPU), measured at once, one worker each (default: the first GPU, else the CPU)")
  String device;

  static final String ALL = "all";
  /** The host's devices; tests put their own here. */
  static java.util.function.Supplier<Devices> DISCOVER = Devices::discover;

  @Option(names = "--format", defaultValue = "table", description = "table, json or csv (default: ${DEFAULT-VALUE})")
  ResultPrinter.Format format;

  @Option(names = "--option", description = "Suite option name=value, for example elements=65536")
  Map<String, String> options = new LinkedHashMap<>();

  @Option(names = "--plan-out", description = "Write the suite's plan, resolved for the device, to this file for the "
      + "native cross-check (deploy/gpu/crosscheck.cu) and measure nothing")
  Path planOut;

  @Option(names = "--profile", description = "Hardware counters where ncu is on the host: run the native harness "
      + "under ncu, one launch per case, and set sectors per request and DRAM bytes beside the model: in each "
      + "result's counters (json) and as a report after the results (on stderr unless --format table)")
  boolean profile;

  @Option(names = "--harness", description = "The native harness for --profile (default: $BUSLOAD_HARNESS)")
  Path harness;

  @Option(names = "--from-case", hidden = true, defaultValue = "0",
      description = "Measure from this case of the plan on (0-based): how a run continues in a fresh process "
          + "after a sticky CUDA error")
  int fromCase;

  @Option(names = "--energy-window", defaultValue = "1.0", description = "Seconds, at least, of each case's launches"
      + " run after its samples to read the GPU's energy counter over (default: ${DEFAULT-VALUE}; 0 reads no"
      + " energy)")
  double energyWindowSeconds;

  @Option(names = "--profile-dir", description = "Keep --profile's plan, fatbin and ncu CSV in this folder")
  Path profileDir;

  @Override
  public Integer call() {
    // Resolve everything before anything is measured: a bad suite, option or device measures nothing.
    SuiteOptions suiteOptions;
    try {
      suiteOptions = SuiteOptions.parse(options);
      Catalog.cases(suite, suiteOptions);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    List<Device> chosen = chosen(DISCOVER.get());
    if (chosen.size() > 1) {
      String single = planOut != null ? "--plan-out" : profile ? "--profile" : fromCase > 0 ? "--from-case" : null;
      if (single != null) {
        throw new CommandLine.ParameterException(spec.commandLine(), single + " takes one device; --device names "
            + chosen.size() + " (" + chosen.stream().map(Device::shortId).collect(Collectors.joining(", ")) + ")");
      }
    }
    RunContext context = new RunContext(null, null, Devices.hostName(), AgentVersion.get());
    // One worker per device, all measuring at once: each result names the others that were busy.
    HostActivity host = new HostActivity();
    List<DeviceWorker> workers = chosen.stream().map(DeviceWorker::new).toList();
    List<KernelResult> results = new ArrayList<>();
    Plan resolved = null;
    boolean failed = false;
    try {
      List<CompletableFuture<Plan>> planning = new ArrayList<>();
      for (DeviceWorker worker : workers) {
        // Sizes need the device's free memory: resolved on its thread, still before anything is allocated.
        Device d = worker.device();
        planning.add(worker.submit(() -> {
          Plan plan = Plan.resolve(suite, suiteOptions, d.limits(), d.shortId());
          return fromCase > 0 ? plan.from(fromCase) : plan;
        }));
      }
      // Every plan first: an option that does not fit one device measures nothing on any.
      List<Plan> plans = new ArrayList<>();
      for (int i = 0; i < workers.size(); i++) {
        try {
          plans.add(planning.get(i).join());
        } catch (java.util.concurrent.CompletionException e) {
          if (e.getCause() instanceof IllegalArgumentException bad) {
            throw new CommandLine.ParameterException(spec.commandLine(), bad.getMessage());
          }
          // The device could not even be attached (a CUDA context, the fatbin): nothing is measured on it.
          spec.commandLine().getErr().println("busload-agent: " + chosen.get(i).shortId() + ": "
              + e.getCause().getMessage());
          failed = true;
          plans.add(null);
        }
      }
      List<CompletableFuture<List<KernelResult>>> runs = new ArrayList<>();
      for (int i = 0; i < workers.size(); i++) {
        Plan plan = plans.get(i);
        if (plan != null) {
          resolved = plan;
        }
        DeviceWorker worker = workers.get(i);
        runs.add(plan == null || planOut != null ? CompletableFuture.completedFuture(List.of())
            : worker.submit(() -> measure(worker.device(), plan, context, host)));
      }
      for (int i = 0; i < runs.size(); i++) {
        try {
          results.addAll(runs.get(i).join());
        } catch (java.util.concurrent.CompletionException e) {
          spec.commandLine().getErr().println("busload-agent: " + chosen.get(i).shortId() + ": "
              + e.getCause().getMessage());
          failed = true;
        }
      }
    } finally {
      // Before profiling: the harness makes its own context, under ncu.
      workers.forEach(DeviceWorker::close);
    }
    if (planOut != null && resolved != null) {
      // The native cross-check's input (deploy/gpu/crosscheck.cu): this device's sizes, nothing measured.
      try {
        Files.writeString(planOut, PlanFile.write(resolved, chosen.getFirst().shortId(),
            SamplingMethod.of(chosen.getFirst())));
      } catch (IOException e) {
        spec.commandLine().getErr().println("busload-agent: --plan-out " + planOut + ": " + e.getMessage());
        return 1;
      }
      spec.commandLine().getErr().println("busload-agent: plan of " + resolved.cases().size() + " cases written to "
          + planOut + "; nothing measured");
    }
    if (failed && results.isEmpty()) {
      return 1;
    }
    ProfileReport.Report report = null;
    PrintWriter reportOut = planOut != null || format == ResultPrinter.Format.table ? spec.commandLine().getOut()
        : spec.commandLine().getErr();
    if (profile && resolved != null) {
      // After the device worker let go of its context: the harness makes its own, under ncu. Before the results
      // are printed, so that each printed result carries its case's counters.
      report = Profiler.profile(resolved, chosen.getFirst().shortId(), Profiler.harness(harness), profileDir,
          reportOut).orElse(null);
      if (report != null) {
        results = ProfileCounters.attach(results, ProfileCounters.byCase(report));
      }
    }
    if (planOut == null) {
      ResultPrinter.forFormat(format).print(results, spec.commandLine().getOut());
      if (format != ResultPrinter.Format.table) {
        // The table prints the verdict with its header; a JSON or CSV file carries the counters, and whoever runs
        // it still reads the verdict, per device, where the log goes.
        results.stream().collect(Collectors.groupingBy(r -> r.device().id(),
                LinkedHashMap::new, Collectors.toList()))
            .forEach((id, of) -> spec.commandLine().getErr().println(id + ": " + RunHealth.line(of)));
        spec.commandLine().getErr().flush();
      }
    }
    if (report != null) {
      ProfileReport.print(report, reportOut);
    }
    // Skipped and unavailable cases are reported, not failures.
    return !failed && results.stream().allMatch(r -> r.valid() || r.status().notRun()) ? 0 : 1;
  }

  /** The suite on one device, on its worker thread, beside whatever else {@code host} is measuring. */
  private List<KernelResult> measure(Device device, Plan plan, RunContext context, HostActivity host) {
    Measurement measurement = new Measurement(device, context, Fatbin.sha256()).sharing(host)
        .energyWindow(energyWindowSeconds);
    FreshProcess fresh = new FreshProcess(suite, device.shortId(), options);
    int offset = fromCase;
    return measurement.run(plan, new Progress() {
      @Override
      public void starting(String kernel, int completed, int total) {
        LOG.info("{} {}/{}: {} on {} ({})", plan.suite(), offset + completed + 1, offset + total, kernel,
            device.shortId(), device.info().name());
      }
    }, k -> fresh.run(offset + k));
  }

  /** {@code --device}: one device, a comma-separated list, or {@code all} (every GPU, else the CPU). */
  private List<Device> chosen(Devices devices) {
    try {
      if (device == null) {
        return List.of(devices.defaults().getFirst());
      }
      if (device.equals(ALL)) {
        return devices.defaults();
      }
      List<Device> named = new ArrayList<>();
      for (String id : device.split(",")) {
        Device d = devices.byShortId(id.strip());
        if (named.contains(d)) {
          throw new IllegalArgumentException("--device names " + d.shortId() + " twice");
        }
        named.add(d);
      }
      return named;
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  static final class SuiteNames implements Iterable<String> {
    @Override
    public java.util.Iterator<String> iterator() {
      return Catalog.suiteNames().iterator();
    }
  }
}
