package io.busload.coordinator.api;

import io.busload.coordinator.store.Params;
import io.busload.protocol.KernelResult;
import io.busload.protocol.ResultCsv;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Results as CSV rows (docs/contract.md, REST): SI units, bandwidth in bytes/s and empty when invalid; then how each
 * was measured ({@link ResultCsv#SAMPLING}), empty where nothing was timed or read; what the case drew
 * ({@link ResultCsv#ENERGY}) and what NVML said of the GPU's health ({@link ResultCsv#HEALTH}), {@code not read} where
 * they were not.
 */
final class ResultsCsv {
  static final List<String> HEADER = header(List.of("id", "sweepId", "runId", "measuredAt", "deviceId", "deviceName",
      "kernel", "params", "valid", "medianSeconds", "minSeconds", "maxSeconds", "relativeSpread", "samples", "bytes",
      "bandwidth"));

  private static List<String> header(List<String> summary) {
    List<String> all = new java.util.ArrayList<>(summary);
    all.addAll(ResultCsv.SAMPLING);
    all.addAll(ResultCsv.ENERGY);
    all.addAll(ResultCsv.HEALTH);
    return List.copyOf(all);
  }

  private ResultsCsv() {}

  static String header() {
    return line(HEADER.stream());
  }

  static String row(KernelResult r) {
    return line(Stream.concat(Stream.of(r.id(), r.sweepId(), r.runId(), r.measuredAt(), r.device().id(),
        r.device().name(), r.kernel(), Params.text(r.params()), r.valid(), r.medianSeconds(), r.minSeconds(),
        r.maxSeconds(), r.relativeSpread(), r.samples().size(), r.bytes(), r.bandwidth()),
        Stream.of(ResultCsv.SAMPLING, ResultCsv.ENERGY, ResultCsv.HEALTH).flatMap(List::stream)
            .map(column -> ResultCsv.value(column, r))));
  }

  private static String line(Stream<?> values) {
    return values.map(v -> v == null ? "" : quote(v.toString())).collect(Collectors.joining(",")) + "\r\n";
  }

  /** RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. */
  static String quote(String value) {
    if (value.indexOf(',') < 0 && value.indexOf('"') < 0 && value.indexOf('\n') < 0 && value.indexOf('\r') < 0) {
      return value;
    }
    return '"' + value.replace("\"", "\"\"") + '"';
  }
}
