package io.busload.coordinator.analysis;

import io.busload.analysis.changepoint.RobustZScore;
import io.busload.analysis.verdict.Conditions;
import io.busload.coordinator.store.ComparisonStore;
import io.busload.coordinator.store.ComparisonStore.Change;
import io.busload.coordinator.store.ComparisonStore.HistoryPoint;
import io.busload.coordinator.store.Params;
import io.busload.protocol.Clocks;
import io.busload.protocol.KernelResult;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Is a new bandwidth outside its history's noise band? The robust z-score,
 * {@link RobustZScore} of the analysis module (the same median, MAD, 3.5 sigmas and 1% floor), here turned into a
 * recorded {@link Change} with what differed from the newest result before it. E-Divisive's change points run
 * beside it ({@link RegressionWatch}).
 */
public final class RegressionCheck {
  public static final int HISTORY = RobustZScore.HISTORY;
  public static final int MIN_HISTORY = RobustZScore.MIN_HISTORY;
  /** Clocks closer than this fraction are one clock (the verdicts' SettingNotes.SAME_CLOCK, for the same reason). */
  static final double SAME_CLOCK = 0.01;
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
   * each came from (a pushed result beside fleet ones, or pushed from another host, is a change of
   * environment worth naming).
   */
  static Map<String, Map<String, String>> environmentDiff(KernelResult result, HistoryPoint before) {
    Map<String, Map<String, String>> diff = new LinkedHashMap<>();
    put(diff, "driverVersion", before.driverVersion(), result.device().driverVersion());
    put(diff, "agentVersion", before.agentVersion(), result.agentVersion());
    put(diff, "fatbinHash", before.fatbinHash(), result.fatbinHash());
    putClocks(diff, before.clocks(), before.method(), result.sampling() == null ? null : result.sampling().clocks(),
        result.method());
    put(diff, "origin", before.origin(), ComparisonStore.origin(result.origin()));
    return diff;
  }

  /**
   * The clocks' difference, from the typed clocks ({@code null}: a result stored without them, whose method
   * sentence is then read). A side whose clocks were not read, or that has none (a CPU), states no
   * clocks, so it is no clock change against a side that was read. Typed clocks are the same when the middles of
   * their SM and memory ranges ({@link ClockConditions}) are within 1% (boost wanders by a bin or two over the samples, as the verdicts' {@code SettingNotes} allow), and so are
   * typed clocks and an older result's sentence whose readings ({@link Conditions#fromMethod}) give the same figures;
   * two results without typed clocks compare their sentences' figures exactly.
   */
  private static void putClocks(Map<String, Map<String, String>> diff, Clocks before, String beforeMethod,
      Clocks after, String afterMethod) {
    if (unread(before) || unread(after)) {
      return;
    }
    String was = clocks(before, beforeMethod);
    String is = clocks(after, afterMethod);
    if (before == null && after == null) {
      put(diff, "clocks", was, is);
      return;
    }
    Conditions b = ClockConditions.of(before, beforeMethod);
    Conditions a = ClockConditions.of(after, afterMethod);
    boolean same = was == null ? is == null
        : is != null && near(b.smMHz(), a.smMHz()) && near(b.memMHz(), a.memMHz());
    if (!same) {
      put(diff, "clocks", was, is);
    }
  }

  private static boolean unread(Clocks clocks) {
    return clocks != null && clocks.reading() != Clocks.Reading.READ;
  }

  private static boolean near(Double before, Double after) {
    if (before == null || after == null) {
      return before == null && after == null;
    }
    return Math.abs(after - before) <= SAME_CLOCK * before;
  }

  /** The clocks in words: the typed ones' ranges, or for a result without them what its method states. */
  static String clocks(Clocks clocks, String method) {
    if (clocks == null) {
      return clocks(method);
    }
    if (clocks.reading() != Clocks.Reading.READ) {
      return null;
    }
    List<String> parts = new ArrayList<>();
    String sm = range(clocks.smMinMHz(), clocks.smMaxMHz());
    String mem = range(clocks.memMinMHz(), clocks.memMaxMHz());
    if (sm != null) {
      parts.add("sm " + sm);
    }
    if (mem != null) {
      parts.add("mem " + mem);
    }
    return parts.isEmpty() ? null : String.join(", ", parts);
  }

  private static String range(Integer min, Integer max) {
    if (min == null || max == null) {
      return null;
    }
    return (min.equals(max) ? min.toString() : min + "–" + max) + " MHz";
  }

  /**
   * Clock figures ("1980 MHz") as a method sentence states them, or null when it states none. Only for results stored
   * without typed clocks, which carry their clocks in no other form.
   */
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
