package io.busload.agent;

import io.busload.agent.crosscheck.PlanFile;
import io.busload.agent.crosscheck.ProfileCounters;
import io.busload.agent.crosscheck.ProfileReport;
import io.busload.agent.crosscheck.Profiler;
import io.busload.agent.device.Device;
import io.busload.agent.device.DeviceWorker;
import io.busload.agent.device.Devices;
import io.busload.agent.measure.FreshProcess;
import io.busload.agent.measure.Measurement;
import io.busload.agent.measure.Plan;
import io.busload.agent.measure.SamplingMethod;
import io.busload.agent.measure.Progress;
import io.busload.agent.measure.RunContext;
import io.busload.agent.report.ResultPrinter;
import io.busload.kernels.Catalog;
import io.busload.kernels.Fatbin;
import io.busload.kernels.SuiteOptions;
import io.busload.protocol.KernelResult;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** Measures one suite on one device and prints it, with no cluster at all. Exit 1 if any result is invalid. */
@Command(name = "run", mixinStandardHelpOptions = true, description = "Measure a suite on one device and print it.")
final class RunCommand implements Callable<Integer> {
  private static final Logger LOG = LoggerFactory.getLogger(RunCommand.class);

  @Spec
  CommandSpec spec;

  @Option(names = "--suite", required = true, description = "Suite to run: ${COMPLETION-CANDIDATES}",
      completionCandidates = SuiteNames.class)
  String suite;

  @Option(names = "--device", description = "cpu or cuda:N (default: the first GPU, else the CPU)")
  String device;

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
    Devices devices = Devices.discover();
    Device chosen;
    try {
      chosen = device == null ? devices.defaults().getFirst() : devices.byShortId(device);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    RunContext context = new RunContext(null, null, Devices.hostName(), AgentVersion.get());

    List<KernelResult> results;
    Plan resolved;
    try (DeviceWorker worker = new DeviceWorker(chosen)) {
      // Sizes need the device's free memory: resolved on its thread, still before anything is allocated.
      Plan plan;
      try {
        plan = worker.submit(() -> Plan.resolve(suite, suiteOptions, chosen.limits(), chosen.shortId())).join();
      } catch (java.util.concurrent.CompletionException e) {
        if (e.getCause() instanceof IllegalArgumentException bad) {
          throw new CommandLine.ParameterException(spec.commandLine(), bad.getMessage());
        }
        throw e;
      }
      if (fromCase > 0) {
        plan = plan.from(fromCase);
      }
      resolved = plan;
      if (planOut != null) {
        // The native cross-check's input (deploy/gpu/crosscheck.cu): this device's sizes, nothing measured.
        try {
          Files.writeString(planOut, PlanFile.write(plan, chosen.shortId(), SamplingMethod.of(chosen)));
        } catch (IOException e) {
          spec.commandLine().getErr().println("busload-agent: --plan-out " + planOut + ": " + e.getMessage());
          return 1;
        }
        spec.commandLine().getErr().println("busload-agent: plan of " + plan.cases().size() + " cases written to "
            + planOut + "; nothing measured");
        results = List.of();
      } else {
        Measurement measurement = new Measurement(chosen, context, Fatbin.sha256());
        Plan measured = plan;
        FreshProcess fresh = new FreshProcess(suite, chosen.shortId(), options);
        int offset = fromCase;
        results = worker.submit(() -> measurement.run(measured, new Progress() {
          @Override
          public void starting(String kernel, int completed, int total) {
            LOG.info("{} {}/{}: {} on {}", measured.suite(), offset + completed + 1, offset + total, kernel,
                chosen.info().name());
          }
        }, k -> fresh.run(offset + k))).join();
      }
    } catch (java.util.concurrent.CompletionException e) {
      // The device could not even be attached (a CUDA context, the fatbin): nothing was measured.
      spec.commandLine().getErr().println("busload-agent: " + chosen.shortId() + ": " + e.getCause().getMessage());
      return 1;
    }
    ProfileReport.Report report = null;
    PrintWriter reportOut = planOut != null || format == ResultPrinter.Format.table ? spec.commandLine().getOut()
        : spec.commandLine().getErr();
    if (profile) {
      // After the device worker let go of its context: the harness makes its own, under ncu. Before the results
      // are printed, so that each printed result carries its case's counters.
      report = Profiler.profile(resolved, chosen.shortId(), Profiler.harness(harness), profileDir, reportOut)
          .orElse(null);
      if (report != null) {
        results = ProfileCounters.attach(results, ProfileCounters.byCase(report));
      }
    }
    if (planOut == null) {
      ResultPrinter.forFormat(format).print(results, spec.commandLine().getOut());
    }
    if (report != null) {
      ProfileReport.print(report, reportOut);
    }
    // Skipped and unavailable cases are reported, not failures.
    return results.stream().allMatch(r -> r.valid() || r.status().notRun()) ? 0 : 1;
  }

  static final class SuiteNames implements Iterable<String> {
    @Override
    public java.util.Iterator<String> iterator() {
      return Catalog.suiteNames().iterator();
    }
  }
}
