package io.busload.coordinator.analysis;

import io.busload.analysis.changepoint.ChangePoint;
import io.busload.analysis.changepoint.OnlineDetector;
import io.busload.coordinator.store.ComparisonStore.Change;
import io.busload.coordinator.store.ComparisonStore.HistoryPoint;
import io.busload.coordinator.store.ComparisonStore;
import io.busload.coordinator.store.Params;
import io.busload.coordinator.store.VerdictStore.Point;
import io.busload.coordinator.store.VerdictStore.StoredChangePoint;
import io.busload.coordinator.store.VerdictStore;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks each newly stored result against its history, after the agent has its ack (detection must never slow
 * or block ingest), two ways side by side: the robust z-score ({@link RegressionCheck}: one point outside the band,
 * recorded in {@code regressions}) and E-Divisive on arrival ({@link SeriesWatch}: a level shift, recorded in
 * {@code change_points} with the A/B verdict of the runs after it against those before). Both are published on
 * {@link #LIVE_REGRESSIONS}.
 *
 * <p>Series are cached per (device, kernel, params), read from the store on first use from where their baseline
 * starts (the newest accepted mark or change point): one query per series, not per result, which is what lets this
 * keep up with 20,000 results/s. An accepted mark, made through any coordinator's REST API, is published on
 * {@link #ACCEPTED_CHANGES} and drops the series it covers from the cache, so their baselines restart there. Checks
 * run as ordered blocking tasks of the coordinator's context: one at a time, each seeing the cache as the last one
 * left it.
 */
public final class RegressionWatch {
  /** Coordinator to everyone, publish: a recorded regression, improvement or change point, as JSON. */
  public static final String LIVE_REGRESSIONS = io.busload.protocol.Addresses.LIVE_REGRESSIONS;
  /** Coordinator to coordinators, publish: {@code {"device", "kernel", "params"}} of an accepted mark. */
  public static final String ACCEPTED_CHANGES = "busload.coordinator.accepted-changes";
  private static final Logger LOG = LoggerFactory.getLogger(RegressionWatch.class);
  private static final int MAX_SERIES = 10_000;

  private final Vertx vertx;
  private final ComparisonStore analysis;
  private final VerdictStore verdicts;
  private final Clock clock;
  private final OnlineDetector.Settings settings = OnlineDetector.Settings.defaults();
  private final Map<String, SeriesWatch> series = new LinkedHashMap<>(256, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, SeriesWatch> eldest) {
      return size() > MAX_SERIES;
    }
  };

  public RegressionWatch(Vertx vertx, ComparisonStore analysis, VerdictStore verdicts, Clock clock) {
    this.vertx = vertx;
    this.analysis = analysis;
    this.verdicts = verdicts;
    this.clock = clock;
    vertx.eventBus().<JsonObject>consumer(ACCEPTED_CHANGES, m -> forget(m.body().getString("device"),
        m.body().getString("kernel"), m.body().getString("params")));
  }

  /** What one check recorded. */
  public record Found(List<Change> changes, List<StoredChangePoint> changePoints) {}

  /** Checks newly stored results (in measuring order per series); completes with what was recorded. */
  public Future<Found> check(List<KernelResult> stored) {
    return vertx.<Found>executeBlocking(() -> checkNow(stored), true).onComplete(done -> {
      if (done.failed()) {
        LOG.error("regression check failed for {} result(s)", stored.size(), done.cause());
        return;
      }
      for (Change change : done.result().changes()) {
        LOG.warn("{} on {} {} {}: {} B/s against a median of {} B/s ({}%)", change.kind(), change.deviceId(),
            change.kernel(), change.params(), change.bandwidth(), change.baselineMedian(),
            Math.round(change.changeFraction() * 1000) / 10.0);
        vertx.eventBus().publish(LIVE_REGRESSIONS, new JsonObject(Buffer.buffer(JsonCodec.toJson(change))));
      }
      for (StoredChangePoint change : done.result().changePoints()) {
        LOG.warn("change point ({}) on {} {} {}: {} B/s -> {} B/s ({}%) from result {}", change.kind(),
            change.deviceId(), change.kernel(), change.params(), change.beforeMedian(), change.afterMedian(),
            Math.round(change.changeFraction() * 1000) / 10.0, change.firstResultId());
        JsonObject event = new JsonObject(Buffer.buffer(JsonCodec.toJson(change)));
        vertx.eventBus().publish(LIVE_REGRESSIONS, event.put("method", "e-divisive"));
      }
    });
  }

  /** Drops the cached series an accepted mark covers (kernel or params null: all of them). */
  public void forget(String deviceId, String kernel, String params) {
    vertx.executeBlocking(() -> {
      series.keySet().removeIf(key -> {
        String[] k = key.split("\n", 3);
        return k[0].equals(deviceId) && (kernel == null || k[1].equals(kernel)) && (params == null
            || k[2].equals(params));
      });
      return null;
    }, true);
  }

  private Found checkNow(List<KernelResult> stored) {
    Instant now = clock.instant();
    List<Change> changes = new ArrayList<>();
    List<StoredChangePoint> changePoints = new ArrayList<>();
    List<KernelResult> ordered = new ArrayList<>(stored);
    ordered.sort(Comparator.comparing(KernelResult::measuredAt));
    for (KernelResult result : ordered) {
      if (!result.valid() || result.bandwidth() == null) {
        continue;
      }
      String params = Params.text(result.params());
      String key = result.device().id() + '\n' + result.kernel() + '\n' + params;
      SeriesWatch watch = series.get(key);
      if (watch == null) {
        Instant since = verdicts.baselineStart(result.device().id(), result.kernel(), params);
        List<Point> history = verdicts.series(result.device().id(), result.kernel(), params, since,
            result.measuredAt(), Math.max(RegressionCheck.HISTORY, settings.window()));
        watch = new SeriesWatch(settings, history.reversed());
        series.put(key, watch);
      }
      RegressionCheck.check(result, watch.zHistory(), now).ifPresent(changes::add);
      Point point = SeriesWatch.point(result);
      watch.add(point).ifPresent(change -> changePoints.add(SeriesWatch.stored(result, params, change, now)));
    }
    analysis.insertChanges(changes);
    verdicts.insertChangePoints(changePoints);
    return new Found(changes, changePoints);
  }

  /** The z-score's history as {@link RegressionCheck} takes it, newest first. */
  static List<HistoryPoint> zHistory(List<Point> newestLast) {
    List<HistoryPoint> history = new ArrayList<>();
    for (int i = newestLast.size() - 1; i >= 0 && history.size() < RegressionCheck.HISTORY; i--) {
      Point p = newestLast.get(i);
      history.add(new HistoryPoint(p.resultId(), p.measuredAt(), p.bandwidth(), p.driverVersion(), p.agentVersion(),
          p.fatbinHash(), p.method(), p.origin(), p.clocks()));
    }
    return history;
  }

  /** For tests and logs: a change point's kind in the words of the regressions table. */
  static String kind(ChangePoint change) {
    return change.after() < change.before() ? Change.Kind.REGRESSION.name() : Change.Kind.IMPROVEMENT.name();
  }
}
