package io.busload.coordinator.analysis;

import io.busload.coordinator.store.Analysis;
import io.busload.coordinator.store.Analysis.Change;
import io.busload.coordinator.store.Analysis.HistoryPoint;
import io.busload.coordinator.store.Params;
import io.busload.protocol.KernelResult;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Is a new bandwidth outside its history's noise band?
 *
 * <p>Method: robust z-score. Over the last {@link #HISTORY} valid results of the same device, kernel and params
 * (at least {@link #MIN_HISTORY}), take the median {@code m} and the median absolute deviation {@code MAD};
 * {@code sigma = 1.4826 * MAD} estimates the standard deviation of normal noise without letting one outlier in
 * the history widen it. The noise band is {@code max(3.5 * sigma, 1% of m)}: 3.5 robust sigmas is the usual
 * outlier cut (Iglewicz and Hoaglin), and the 1% floor keeps a history that happened to be nearly identical
 * from flagging changes no one could act on. A bandwidth below {@code m - band} is a regression, above
 * {@code m + band} an improvement. Medians, not means, so one bad sample in the past cannot move the baseline.
 */
public final class RegressionCheck {
  public static final int HISTORY = 30;
  public static final int MIN_HISTORY = 5;
  public static final double Z_CUT = 3.5;
  public static final double MIN_RELATIVE_BAND = 0.01;
  private static final double MAD_TO_SIGMA = 1.4826;
  private static final Pattern CLOCK = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*MHz", Pattern.CASE_INSENSITIVE);

  private RegressionCheck() {}

  /** {@code history} newest first, as the store returns it; empty when the result is within the band. */
  public static Optional<Change> check(KernelResult result, List<HistoryPoint> history, Instant now) {
    if (!result.valid() || result.bandwidth() == null || history.size() < MIN_HISTORY) {
      return Optional.empty();
    }
    double[] values = history.stream().limit(HISTORY).mapToDouble(HistoryPoint::bandwidth).toArray();
    double median = median(values);
    double mad = median(Arrays.stream(values).map(v -> Math.abs(v - median)).toArray());
    double sigma = MAD_TO_SIGMA * mad;
    double band = Math.max(Z_CUT * sigma, MIN_RELATIVE_BAND * Math.abs(median));
    double x = result.bandwidth();
    double delta = x - median;
    if (Math.abs(delta) <= band) {
      return Optional.empty();
    }
    double z = sigma > 0 ? delta / sigma : Math.copySign(Double.POSITIVE_INFINITY, delta);
    Change.Kind kind = delta < 0 ? Change.Kind.REGRESSION : Change.Kind.IMPROVEMENT;
    return Optional.of(new Change(UUID.randomUUID(), result.id(), kind, result.device().id(), result.device().name(),
        result.kernel(), Params.text(result.params()), x, median, mad, band, finite(z), delta / median,
        values.length, environmentDiff(result, history.getFirst()), result.measuredAt(), now));
  }

  /**
   * What differs between the result and the newest result of its history: driver, agent, fatbin, clocks, and where
   * each came from (issue 11: a pushed result beside fleet ones, or pushed from another host, is a change of
   * environment worth naming).
   */
  static Map<String, Map<String, String>> environmentDiff(KernelResult result, HistoryPoint before) {
    Map<String, Map<String, String>> diff = new LinkedHashMap<>();
    put(diff, "driverVersion", before.driverVersion(), result.device().driverVersion());
    put(diff, "agentVersion", before.agentVersion(), result.agentVersion());
    put(diff, "fatbinHash", before.fatbinHash(), result.fatbinHash());
    put(diff, "clocks", clocks(before.method()), clocks(result.method()));
    put(diff, "origin", before.origin(), Analysis.origin(result.origin()));
    return diff;
  }

  /** Clock figures ("1980 MHz") as the agent's method text states them, or null when it states none. */
  static String clocks(String method) {
    if (method == null) {
      return null;
    }
    Matcher m = CLOCK.matcher(method);
    StringBuilder found = new StringBuilder();
    while (m.find()) {
      found.append(found.isEmpty() ? "" : ", ").append(m.group(1)).append(" MHz");
    }
    return found.isEmpty() ? null : found.toString();
  }

  private static void put(Map<String, Map<String, String>> diff, String field, String before, String after) {
    if (!java.util.Objects.equals(before, after)) {
      Map<String, String> change = new LinkedHashMap<>();
      change.put("before", before);
      change.put("after", after);
      diff.put(field, change);
    }
  }

  static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  /** JSON has no infinity: a zero-MAD history reports the largest finite z. */
  private static double finite(double z) {
    return Double.isInfinite(z) ? Math.copySign(Double.MAX_VALUE, z) : z;
  }
}
