package io.busload.agent.report;

import io.busload.protocol.KernelResult;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * CSV with the coordinator's columns (docs/contract.md) plus {@code launchesPerSample}, {@code method} and the
 * fractions of the memcpy row of the same run and of the theoretical peak ({@link Ceilings}):
 * params as {@code elements=1024;stride=4}, seconds and bytes/s in SI, bandwidth empty when invalid. The last column,
 * {@code sampleSeconds}, holds every sample (seconds per launch, space-separated, in measuring order) so that
 * {@code busload compare} can judge two CSV files on their raw samples (issue 13); it is last so that readers by
 * position of the columns before it still read them.
 */
public final class CsvPrinter implements ResultPrinter {
  public static final String HEADER = "id,sweepId,runId,measuredAt,deviceId,deviceName,kernel,params,valid,"
      + "medianSeconds,minSeconds,maxSeconds,relativeSpread,samples,bytes,bandwidth,launchesPerSample,method,"
      + "fractionOfMemcpy,fractionOfPeak,sampleSeconds";

  @Override
  public void print(List<KernelResult> results, PrintWriter out) {
    out.print(HEADER + "\r\n");
    Ceilings ceilings = Ceilings.of(results);
    for (KernelResult r : results) {
      out.print(String.join(",",
          field(r.id()), field(r.sweepId()), field(r.runId()), field(r.measuredAt()), field(r.device().id()),
          field(r.device().name()), field(r.kernel()), field(params(r.params())), field(r.valid()),
          field(r.medianSeconds()), field(r.minSeconds()), field(r.maxSeconds()), field(r.relativeSpread()),
          field(r.samples().size()), field(r.bytes()), field(r.bandwidth()), field(r.launchesPerSample()),
          field(r.method()), field(ceilings.ofMemcpy(r).orElse(null)), field(ceilings.ofPeak(r).orElse(null)),
          field(r.samples().stream().map(String::valueOf).collect(Collectors.joining(" "))))
          + "\r\n");
    }
    out.flush();
  }

  public static String params(Map<String, Object> params) {
    return params.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(";"));
  }

  /** RFC 4180: quote a field holding a comma, quote or line break; null is empty. */
  static String field(Object value) {
    if (value == null) {
      return "";
    }
    String text = value.toString();
    if (text.contains(",") || text.contains("\"") || text.contains("\n") || text.contains("\r")) {
      return "\"" + text.replace("\"", "\"\"") + "\"";
    }
    return text;
  }
}
