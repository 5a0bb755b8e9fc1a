package io.busload.coordinator;

import com.fasterxml.jackson.core.type.TypeReference;
import io.busload.protocol.JsonCodec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The text of {@code /metrics} as Prometheus's own Python client parser ({@code prometheus_client.parser}, Debian's
 * {@code python3-prometheus-client}, which {@code ./busload test} installs) reads it: a parser that Prometheus keeps,
 * not one written here, so that output it would refuse fails the test.
 */
public final class PrometheusText {
  /** Debian's interpreter, where Debian's package puts the parser (a pyenv or venv python on PATH may lack it). */
  private static final Path PYTHON = Path.of("/usr/bin/python3");
  private static final String SCRIPT = """
      import json, sys
      from prometheus_client.parser import text_string_to_metric_families
      out = []
      for family in text_string_to_metric_families(sys.stdin.read()):
          for s in family.samples:
              out.append({"family": family.name, "type": family.type, "name": s.name, "labels": s.labels,
                          "value": repr(float(s.value))})
      print(json.dumps(out))
      """;

  /** One sample as the parser read it; {@code family} is the metric's name without {@code _total} and the like. */
  public record Sample(String family, String type, String name, Map<String, String> labels, double value) {}

  private record Raw(String family, String type, String name, Map<String, String> labels, String value) {}

  private PrometheusText() {}

  /** Every sample of {@code text}; fails naming the parser's complaint when it cannot read it. */
  public static List<Sample> parse(String text) throws IOException, InterruptedException {
    if (!Files.isExecutable(PYTHON)) {
      throw new AssertionError(PYTHON + " is missing: install Debian's python3-prometheus-client (./busload test does)");
    }
    Process p = new ProcessBuilder(PYTHON.toString(), "-c", SCRIPT).redirectErrorStream(false).start();
    try (var in = p.getOutputStream()) {
      in.write(text.getBytes(StandardCharsets.UTF_8));
    }
    byte[] out = p.getInputStream().readAllBytes();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new AssertionError("Prometheus's client parser refused /metrics (install Debian's"
          + " python3-prometheus-client if it is missing): " + err);
    }
    List<Raw> raw = JsonCodec.MAPPER.readValue(out, new TypeReference<List<Raw>>() {});
    return raw.stream().map(r -> new Sample(r.family(), r.type(), r.name(), r.labels(), switch (r.value()) {
      case "nan" -> Double.NaN;
      case "inf" -> Double.POSITIVE_INFINITY;
      case "-inf" -> Double.NEGATIVE_INFINITY;
      default -> Double.parseDouble(r.value());
    })).toList();
  }
}
