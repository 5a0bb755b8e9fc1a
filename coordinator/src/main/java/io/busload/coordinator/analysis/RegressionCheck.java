package io.busload.coordinator.analysis;

import io.busload.analysis.changepoint.RobustZScore;
import io.busload.coordinator.store.Analysis;
import io.busload.coordinator.store.Analysis.Change;
import io.busload.coordinator.store.Analysis.HistoryPoint;
import io.busload.coordinator.store.Params;
import io.busload.protocol.KernelResult;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Is a new bandwidth outside its history's noise band? The robust z-score of issue 4, now
 * {@link RobustZScore} in the analysis module (the same median, MAD, 3.5 sigmas and 1% floor), here turned into a
 * recorded {@link Change} with what differed from the newest result before it. E-Divisive's change points run
 * beside it ({@link RegressionWatch}).
 */
public final class RegressionCheck {
  public static final int HISTORY = RobustZScore.HISTORY;
  public static final int MIN_HISTORY = RobustZScore.MIN_HISTORY;
  private static final Pattern CLOCK = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*MHz", Pattern.CASE_INSENSITIVE);

  private RegressionCheck() {}

  /** {@code history} newest first, as the store returns it; empty when the result is within the band. */
  public static Optional<Change> check(KernelResult result, List<HistoryPoint> history, Instant now) {
    if (!result.valid() || result.bandwidth() == null) {
      return Optional.empty();
    }
    double[] values = history.stream().limit(HISTORY).mapToDouble(HistoryPoint::bandwidth).toArray();
    return RobustZScore.check(result.bandwidth(), values).map(alarm -> new Change(UUID.randomUUID(), result.id(),
        alarm.delta() < 0 ? Change.Kind.REGRESSION : Change.Kind.IMPROVEMENT, result.device().id(),
        result.device().name(), result.kernel(), Params.text(result.params()), alarm.value(), alarm.median(),
        alarm.mad(), alarm.band(), alarm.z(), alarm.relativeShift(), alarm.count(),
        environmentDiff(result, history.getFirst()), result.measuredAt(), now));
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
}
