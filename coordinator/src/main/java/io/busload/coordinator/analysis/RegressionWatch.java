package io.busload.coordinator.analysis;

import io.busload.coordinator.store.Analysis;
import io.busload.coordinator.store.Analysis.Change;
import io.busload.coordinator.store.Analysis.HistoryPoint;
import io.busload.coordinator.store.Params;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks each newly stored result against its history, after the agent has its ack (detection must never slow
 * or block ingest), records changes and publishes them on {@link #LIVE_REGRESSIONS}.
 *
 * <p>Histories are cached per (device, kernel, params), read from the store on first use: one query per
 * series, not per result, which is what lets this keep up with 20,000 results/s. Checks run as ordered blocking
 * tasks of the coordinator's context: one at a time, each seeing the cache as the last one left it.
 */
public final class RegressionWatch {
  /** Coordinator to everyone, publish: a recorded regression or improvement, as JSON. To move to protocol's Addresses. */
  public static final String LIVE_REGRESSIONS = io.busload.protocol.Addresses.LIVE_REGRESSIONS;
  private static final Logger LOG = LoggerFactory.getLogger(RegressionWatch.class);
  private static final int MAX_SERIES = 10_000;

  private final Vertx vertx;
  private final Analysis analysis;
  private final Clock clock;
  private final Map<String, Deque<HistoryPoint>> series = new LinkedHashMap<>(256, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Deque<HistoryPoint>> eldest) {
      return size() > MAX_SERIES;
    }
  };

  public RegressionWatch(Vertx vertx, Analysis analysis, Clock clock) {
    this.vertx = vertx;
    this.analysis = analysis;
    this.clock = clock;
  }

  /** Checks newly stored results (in measuring order per series); completes with the changes recorded. */
  public Future<List<Change>> check(List<KernelResult> stored) {
    return vertx.<List<Change>>executeBlocking(() -> checkNow(stored), true).onComplete(done -> {
      if (done.failed()) {
        LOG.error("regression check failed for {} result(s)", stored.size(), done.cause());
        return;
      }
      for (Change change : done.result()) {
        LOG.warn("{} on {} {} {}: {} B/s against a median of {} B/s ({}%)", change.kind(), change.deviceId(),
            change.kernel(), change.params(), change.bandwidth(), change.baselineMedian(),
            Math.round(change.changeFraction() * 1000) / 10.0);
        vertx.eventBus().publish(LIVE_REGRESSIONS, new JsonObject(Buffer.buffer(JsonCodec.toJson(change))));
      }
    });
  }

  private List<Change> checkNow(List<KernelResult> stored) {
    Instant now = clock.instant();
    List<Change> changes = new ArrayList<>();
    List<KernelResult> ordered = new ArrayList<>(stored);
    ordered.sort(Comparator.comparing(KernelResult::measuredAt));
    for (KernelResult result : ordered) {
      if (!result.valid() || result.bandwidth() == null) {
        continue;
      }
      String params = Params.text(result.params());
      String key = result.device().id() + '\n' + result.kernel() + '\n' + params;
      Deque<HistoryPoint> history = series.get(key);
      if (history == null) {
        history = new ArrayDeque<>(analysis.history(result.device().id(), result.kernel(), params, result.measuredAt(),
            RegressionCheck.HISTORY));
        series.put(key, history);
      }
      RegressionCheck.check(result, List.copyOf(history), now).ifPresent(changes::add);
      history.addFirst(new HistoryPoint(result.id(), result.measuredAt(), result.bandwidth(),
          result.device().driverVersion(), result.agentVersion(), result.fatbinHash(), result.method(),
          Analysis.origin(result.origin())));
      while (history.size() > RegressionCheck.HISTORY) {
        history.removeLast();
      }
    }
    analysis.insertChanges(changes);
    return changes;
  }
}
