package io.busload.analysis.verdict;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the GPU was doing while it was measured: SM and memory clocks (the mean of the readings before and after),
 * throttling, other processes. Null clocks: not recorded (a CPU, or no nvidia-smi).
 */
public record Conditions(Double smMHz, Double memMHz, boolean throttling, boolean shared) {
  public static final Conditions NOT_RECORDED = new Conditions(null, null, false, false);

  // The agent writes "GPU before: sm 1980 MHz, mem 2619 MHz, 38 C, ...; after: sm 1980 MHz, mem 2619 MHz, ..."
  // (agent GpuConditions) and "WARNING: the GPU was throttling and shared with other processes" (Conditions.warning).
  private static final Pattern READING = Pattern.compile("(?:before|after): sm (\\d+(?:\\.\\d+)?) MHz, mem (\\d+(?:\\.\\d+)?) MHz");

  /**
   * The conditions a result's method sentence states. Results without typed clocks carry them only as that
   * sentence; later ones carry their clocks as typed fields (protocol Clocks), which the coordinator's
   * ClockConditions reads instead, coming here only for those older results and for whether other processes shared
   * the GPU, which no typed field says yet. The agent's offline {@code busload compare} (agent verdicts.Measured)
   * likewise reads the sentence only for results without typed clocks.
   */
  /**
   * The conditions of a result with typed clocks, given here field by field so that this module needs no
   * protocol: {@code read} false (clocks not read, or a device without them) gives no figures, since a figure from
   * elsewhere would be a guess; read clocks give the midpoint of each clock's lowest and highest reading during
   * sampling. Whether other processes shared the GPU is in no typed field, so that still comes from {@code method}.
   */
  public static Conditions fromClocks(boolean read, Integer smMinMHz, Integer smMaxMHz, Integer memMinMHz,
      Integer memMaxMHz, boolean throttling, String method) {
    boolean shared = fromMethod(method).shared();
    if (!read) {
      return new Conditions(null, null, false, shared);
    }
    return new Conditions(midpoint(smMinMHz, smMaxMHz), midpoint(memMinMHz, memMaxMHz), throttling, shared);
  }

  private static Double midpoint(Integer min, Integer max) {
    return min == null || max == null ? null : (min + max) / 2.0;
  }

  public static Conditions fromMethod(String method) {
    if (method == null) {
      return NOT_RECORDED;
    }
    Matcher m = READING.matcher(method);
    double sm = 0;
    double mem = 0;
    int readings = 0;
    while (m.find()) {
      sm += Double.parseDouble(m.group(1));
      mem += Double.parseDouble(m.group(2));
      readings++;
    }
    boolean throttling = method.contains("the GPU was throttling");
    boolean shared = method.contains("shared with other processes");
    return readings == 0 ? new Conditions(null, null, throttling, shared)
        : new Conditions(sm / readings, mem / readings, throttling, shared);
  }
}
