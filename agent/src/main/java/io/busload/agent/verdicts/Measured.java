package io.busload.agent.verdicts;

import io.busload.analysis.verdict.Conditions;
import io.busload.analysis.verdict.Setting;
import io.busload.analysis.verdict.Side;
import io.busload.protocol.Clocks;
import io.busload.protocol.KernelResult;
import java.time.Instant;
import java.util.List;

/**
 * One result as the verdicts need it, from a JSON file, a CSV file or a coordinator. A CSV file states no driver,
 * fingerprint, agent version or fatbin: those are null, and no difference is named for them.
 *
 * @param params as the CSV writes them, {@code size=67108864;stride=4}
 * @param sampleSeconds seconds per launch, one per sample; empty when the file holds none
 * @param conditions clocks and throttling from the typed fields, or from the method sentence for a result
 *     written before them
 */
record Measured(String kernel, String params, String deviceId, String deviceName, String driver, String fingerprint,
    String agentVersion, String fatbinHash, boolean valid, String problem, List<Double> sampleSeconds, long bytes,
    Double bandwidth, String method, Instant measuredAt, Conditions conditions) {

  Measured {
    sampleSeconds = List.copyOf(sampleSeconds);
  }

  static Measured of(KernelResult r) {
    String problem = r.valid() ? null : r.mismatches().isEmpty() ? r.method() : r.mismatches().getFirst();
    return new Measured(r.kernel(), io.busload.agent.report.CsvPrinter.params(r.params()), r.device().id(),
        r.device().name(), r.device().driverVersion(), r.device().fingerprint(), r.agentVersion(), r.fatbinHash(),
        r.valid(), problem, r.samples(), r.bytes(), r.bandwidth(), r.method(), r.measuredAt(), conditions(r));
  }

  /** The typed clocks where the result has them; the method sentence only for results without them. */
  static Conditions conditions(KernelResult r) {
    Clocks c = r.sampling() == null ? null : r.sampling().clocks();
    if (c == null) {
      return Conditions.fromMethod(r.method());
    }
    return Conditions.fromClocks(c.reading() == Clocks.Reading.READ, c.smMinMHz(), c.smMaxMHz(), c.memMinMHz(),
        c.memMaxMHz(), c.throttleReasons() != null && Clocks.throttling(c.throttleReasons()), r.method());
  }

  /** The kernel case: what is paired across the two sides. */
  String key() {
    return kernel + " " + params;
  }

  /** Bytes per second per sample (higher is better), or why this result cannot be compared. */
  Side side(String label) {
    return Side.ofResult(label, new Setting(deviceName, fingerprint, driver, agentVersion, fatbinHash,
        conditions), valid, problem, sampleSeconds, bytes);
  }
}
