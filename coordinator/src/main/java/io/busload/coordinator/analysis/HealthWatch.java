package io.busload.coordinator.analysis;

import io.busload.analysis.health.HealthCounts;
import io.busload.analysis.health.HealthInputs;
import io.busload.analysis.health.HealthRules;
import io.busload.analysis.health.MemcpyFloor;
import io.busload.coordinator.store.HealthStore;
import io.busload.kernels.Catalog;
import io.busload.protocol.Clocks;
import io.busload.protocol.HealthCounters;
import io.busload.protocol.KernelResult;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Judges a device's health ({@link HealthRules}) each time results that carry its NVML health are stored, from the
 * run they belong to: the newest counters against those at the run's start, the XID events, the run's memcpy
 * against its model's floor (the fleet's median, or a published figure where the fleet has too few of the model),
 * and throttling through the run's cases. The verdict is stored per device; those whose state changed are handed on
 * for notices. Pushed results ({@code ./busload push}) are not judged: a push token can name any device id, and must
 * not be able to call a fleet device FAILED. Checks run as ordered blocking tasks, after the agent has its ack, so judging never slows ingest.
 */
public record HealthWatch(Vertx vertx, HealthStore store, Clock clock) {
  private static final Logger LOG = LoggerFactory.getLogger(HealthWatch.class);

  /** Judges each device with health in {@code stored}; completes with what storing each verdict changed. */
  public Future<List<HealthStore.Stored>> check(List<KernelResult> stored) {
    Map<String, KernelResult> newest = new LinkedHashMap<>();
    for (KernelResult r : stored) {
      // Only the fleet's own results: a push token vouches for a file, not for the device a result names.
      if (r.health() != null && r.origin() == null) {
        newest.merge(r.device().id(), r, (a, b) -> b.measuredAt().isAfter(a.measuredAt()) ? b : a);
      }
    }
    if (newest.isEmpty()) {
      return Future.succeededFuture(List.of());
    }
    return vertx.<List<HealthStore.Stored>>executeBlocking(() -> {
      List<HealthStore.Stored> judged = new ArrayList<>();
      for (KernelResult r : newest.values()) {
        judged.add(judge(r, stored));
      }
      return judged;
    }, true).onFailure(e -> LOG.error("cannot judge the health of {} device(s)", newest.size(), e));
  }

  private HealthStore.Stored judge(KernelResult newest, List<KernelResult> batch) {
    String deviceId = newest.device().id();
    List<KernelResult> run = newest.sweepId() == null
        ? batch.stream().filter(r -> r.device().id().equals(deviceId)
            && java.util.Objects.equals(r.runId(), newest.runId())).toList()
        : store.runResults(newest.sweepId(), deviceId);
    KernelResult last = run.stream().filter(r -> r.health() != null)
        .max(Comparator.comparing(KernelResult::measuredAt)).orElse(newest);
    String model = newest.device().name();
    List<Double> fleet = store.newestOfModel(model, Catalog.MEMCPY_D2D.name()).stream()
        .map(HealthWatch::memcpyFraction).filter(f -> f != null).toList();
    HealthInputs inputs = inputs(last, run, MemcpyFloor.of(model, fleet));
    return store.store(deviceId, model, HealthRules.judge(inputs), last.runId(), last.id(), clock.instant());
  }

  /** One run's health inputs: {@code last}'s counters and XIDs, and the run's memcpy and throttling. */
  static HealthInputs inputs(KernelResult last, List<KernelResult> run, MemcpyFloor floor) {
    Double memcpy = run.stream().filter(r -> r.kernel().equals(Catalog.MEMCPY_D2D.name()))
        .map(HealthWatch::memcpyFraction).filter(f -> f != null).reduce((a, b) -> b).orElse(null);
    List<Long> reasons = run.stream().map(r -> r.sampling() == null ? null : r.sampling().clocks())
        .filter(c -> c != null && c.reading() == Clocks.Reading.READ && c.throttleReasons() != null)
        .map(Clocks::throttleReasons).toList();
    return HealthInputs.ofRun(counts(last.health().atRunStart()), counts(last.health().afterCase()),
        last.health().xids(), memcpy, floor, reasons, Clocks.BENIGN_REASONS);
  }

  /** A valid memcpy's bandwidth over its device's theoretical peak; null without either. */
  static Double memcpyFraction(KernelResult r) {
    double peak = r.device().theoreticalPeakBytesPerSecond();
    return r.valid() && r.bandwidth() != null && peak > 0 ? r.bandwidth() / peak : null;
  }

  /** The protocol's counters as the analysis module's, field for field. */
  public static HealthCounts counts(HealthCounters c) {
    return new HealthCounts(c.eccVolatileCorrected(), c.eccVolatileUncorrected(), c.eccAggregateCorrected(),
        c.eccAggregateUncorrected(), c.retiredPagesSingleBit(), c.retiredPagesDoubleBit(), c.retiredPagesPending(),
        c.remappedRowsCorrectable(), c.remappedRowsUncorrectable(), c.remapPending(), c.remapFailure(),
        c.pcieReplays());
  }
}
