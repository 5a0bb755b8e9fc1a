package io.busload.agent;

import io.busload.agent.device.Device;
import io.busload.agent.device.DeviceWorker;
import io.busload.agent.device.Devices;
import io.busload.agent.measure.Measurement;
import io.busload.agent.measure.Plan;
import io.busload.agent.measure.Progress;
import io.busload.agent.measure.RunContext;
import io.busload.agent.report.ResultPrinter;
import io.busload.kernels.Catalog;
import io.busload.kernels.Fatbin;
import io.busload.kernels.SuiteOptions;
import io.busload.protocol.KernelResult;
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
      Measurement measurement = new Measurement(chosen, context, Fatbin.sha256());
      results = worker.submit(() -> measurement.run(plan, new Progress() {
        @Override
        public void starting(String kernel, int completed, int total) {
          LOG.info("{} {}/{}: {} on {}", plan.suite(), completed + 1, total, kernel, chosen.info().name());
        }
      })).join();
    } catch (java.util.concurrent.CompletionException e) {
      // The device could not even be attached (a CUDA context, the fatbin): nothing was measured.
      spec.commandLine().getErr().println("busload-agent: " + chosen.shortId() + ": " + e.getCause().getMessage());
      return 1;
    }
    ResultPrinter.forFormat(format).print(results, spec.commandLine().getOut());
    // Skipped and unavailable cases are reported, not failures.
    return results.stream().allMatch(r -> r.valid() || Measurement.skipped(r)) ? 0 : 1;
  }

  static final class SuiteNames implements Iterable<String> {
    @Override
    public java.util.Iterator<String> iterator() {
      return Catalog.suiteNames().iterator();
    }
  }
}
