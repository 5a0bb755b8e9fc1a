package io.busload.agent.verdicts;

import io.busload.analysis.verdict.AbTest;
import io.busload.analysis.verdict.Thresholds;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code busload compare BASELINE CANDIDATE}: a CI gate. Exit 0 when no kernel case is SLOWER, 1 when one is, 2 on
 * bad input (a file of another format, an unknown sweep or device, nothing in common).
 */
@Command(name = "compare", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Compare two sets of results kernel by kernel on their raw samples and print a Markdown table.",
        "Exit 0: nothing SLOWER; 1: something SLOWER; 2: bad input."},
    footer = {"", "Each side is a result file from busload run (--format json or csv), or with --coordinator a sweep id "
        + "or a device id (sweep:ID or device:ID to say which; a bare id is tried as a sweep, then as a device). A "
        + "device side takes the device's newest result of each kernel case."})
public final class CompareCommand implements Callable<Integer> {
  static final int SAME_OR_BETTER = 0;
  static final int SLOWER = 1;
  static final int BAD_INPUT = 2;

  @Spec
  CommandSpec spec;

  @Parameters(index = "0", paramLabel = "BASELINE", description = "Result file, sweep id or device id")
  String baseline;

  @Parameters(index = "1", paramLabel = "CANDIDATE", description = "Result file, sweep id or device id")
  String candidate;

  @Option(names = "--threshold", paramLabel = "FRACTION", defaultValue = "0.01",
      description = "Smallest relative shift that counts, 0.01 = 1% (default: ${DEFAULT-VALUE}); also 1%")
  String threshold;

  @Option(names = "--coordinator", paramLabel = "URL",
      description = "Coordinator REST API for sweep and device ids, e.g. http://coordinator:8081")
  URI coordinator;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try {
      Thresholds thresholds = Thresholds.withMinShift(fraction(threshold));
      List<Measured> before = load("BASELINE", baseline);
      List<Measured> after = load("CANDIDATE", candidate);
      CompareReport report = compare(describe(baseline, before), describe(candidate, after), before, after,
          thresholds);
      report.print(out);
      return report.anySlower() ? SLOWER : SAME_OR_BETTER;
    } catch (BadInputException e) {
      err.println("busload compare: " + e.getMessage());
      err.flush();
      return BAD_INPUT;
    }
  }

  /** Pairs the two sides by kernel case (the newest result of a case wins within a side) and judges each pair. */
  static CompareReport compare(String baselineLabel, String candidateLabel, List<Measured> before,
      List<Measured> after, Thresholds thresholds) throws BadInputException {
    Map<String, Measured> b = newest(before);
    Map<String, Measured> c = newest(after);
    List<KernelVerdict> rows = new ArrayList<>();
    List<String> onlyBaseline = new ArrayList<>();
    for (Map.Entry<String, Measured> e : b.entrySet()) {
      Measured other = c.get(e.getKey());
      if (other == null) {
        onlyBaseline.add(e.getKey());
        continue;
      }
      rows.add(new KernelVerdict(e.getValue().kernel(), e.getValue().params(), e.getValue(), other,
          AbTest.compare(e.getValue().side("baseline"), other.side("candidate"), thresholds)));
    }
    List<String> onlyCandidate = c.keySet().stream().filter(k -> !b.containsKey(k)).toList();
    if (rows.isEmpty()) {
      throw new BadInputException("no kernel case in common: the baseline has " + String.join(", ", b.keySet())
          + "; the candidate has " + String.join(", ", c.keySet()));
    }
    return new CompareReport(baselineLabel, candidateLabel, thresholds, rows, onlyBaseline, onlyCandidate);
  }

  private static Map<String, Measured> newest(List<Measured> results) {
    Map<String, Measured> newest = new LinkedHashMap<>();
    results.stream().sorted(Comparator.comparing(Measured::measuredAt).reversed())
        .forEach(m -> newest.putIfAbsent(m.key(), m));
    Map<String, Measured> inOrder = new LinkedHashMap<>();
    results.stream().map(Measured::key).distinct().forEach(k -> inOrder.put(k, newest.get(k)));
    return inOrder;
  }

  private List<Measured> load(String which, String side) throws BadInputException {
    Path file = Path.of(side);
    boolean prefixed = side.startsWith("sweep:") || side.startsWith("device:");
    if (!prefixed && Files.exists(file)) {
      return ResultFiles.read(file);
    }
    if (coordinator == null) {
      throw new BadInputException(which + " '" + side + "': " + (prefixed ? "a sweep or device needs --coordinator URL"
          : "no such file (and no --coordinator to look it up as a sweep or device id)"));
    }
    CoordinatorResults remote = new CoordinatorResults(coordinator);
    if (side.startsWith("sweep:")) {
      return remote.sweep(side.substring("sweep:".length()));
    }
    if (side.startsWith("device:")) {
      return remote.device(side.substring("device:".length()));
    }
    try {
      return remote.sweep(side);
    } catch (BadInputException notASweep) {
      if (!notASweep.getMessage().startsWith("unknown sweep")) {
        throw notASweep;
      }
      try {
        return remote.device(side);
      } catch (BadInputException notADevice) {
        if (!notADevice.getMessage().startsWith("unknown device")) {
          throw notADevice;
        }
        throw new BadInputException(which + " '" + side + "': no such file, and " + coordinator
            + " knows no sweep or device by that id");
      }
    }
  }

  private static String describe(String side, List<Measured> results) {
    Measured first = results.getFirst();
    Instant from = results.stream().map(Measured::measuredAt).min(Comparator.naturalOrder()).orElseThrow();
    return "`" + side + "`: " + results.size() + " result" + (results.size() == 1 ? "" : "s") + ", "
        + first.deviceName() + (first.driver() == null ? "" : ", driver " + first.driver()) + ", measured "
        + from.toString().substring(0, 16).replace('T', ' ') + " UTC";
  }

  /** "0.01", "1%", "1.5 %": a fraction from 0 to below 1. */
  static double fraction(String text) throws BadInputException {
    String t = text.strip();
    boolean percent = t.endsWith("%");
    try {
      double v = Double.parseDouble(percent ? t.substring(0, t.length() - 1).strip() : t);
      double f = percent ? v / 100 : v;
      if (!(f >= 0 && f < 1)) {
        throw new BadInputException("--threshold " + text + ": must be from 0 to below 1 (0.01 or 1% is one percent)");
      }
      return f;
    } catch (NumberFormatException e) {
      throw new BadInputException("--threshold '" + text + "' is not a number (0.01 or 1%)");
    }
  }
}
