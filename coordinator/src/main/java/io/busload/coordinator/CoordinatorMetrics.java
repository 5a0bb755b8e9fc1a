package io.busload.coordinator;

import io.busload.coordinator.fleet.Fleet;
import io.busload.coordinator.fleet.ResultBatcher;
import io.busload.coordinator.fleet.ResultGauges;
import io.busload.coordinator.store.HealthStore;
import io.busload.coordinator.store.ResultStore;
import io.busload.coordinator.store.SweepStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's own meters on its Prometheus registry (served at {@code /metrics}): the ones that read parts the
 * verticle wires together (the fleet, the result batcher, the connection guards, the run queue's depth in the store)
 * and the result gauges, seeded from the store at start. Meters that belong to one part ({@link
 * io.busload.coordinator.fleet.Refusals}, the certificate expiry, sample aging, the REST API) register themselves on
 * {@link #registry()}. The verticle calls each method where it has built the part it reads, so the meters are
 * registered in the order the parts are built.
 */
final class CoordinatorMetrics {
  /** The verticle's logger, beside its other start lines. */
  private static final Logger LOG = LoggerFactory.getLogger(CoordinatorVerticle.class);

  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  /** The queue depth as last read from the store by {@link #readQueued}; the gauge reads this, not the store. */
  private final AtomicLong queued = new AtomicLong();

  PrometheusMeterRegistry registry() {
    return registry;
  }

  /**
   * The result gauges, fed the store's figures: each device's newest run that timed memcpy-d2d since {@code since},
   * read on an analysis worker (columns only) and fed on the caller's context, where stored results feed them too.
   */
  ResultGauges resultGauges(ResultStore results, HealthStore health, WorkerExecutor analysisWorkers, Instant since) {
    ResultGauges gauges = new ResultGauges(registry, ResultGauges.maxDevices(System.getenv()));
    analysisWorkers.executeBlocking(() -> results.newestRunFigures(
        io.busload.kernels.Catalog.MEMCPY_D2D.name(), since), false).onSuccess(figures -> {
          gauges.seed(figures.stream().map(f -> new ResultGauges.Figure(f.deviceId(), f.run(), f.kernel(),
              f.bandwidth(), f.measuredAt())).toList());
          LOG.info("metrics: {} figures of {} devices' newest runs read back for the result gauges", figures.size(),
              figures.stream().map(ResultStore.RunFigure::deviceId).distinct().count());
        }).onFailure(e -> LOG.warn("metrics: the result gauges start empty; reading the newest runs failed", e));
    analysisWorkers.executeBlocking(health::devices, false)
        .onSuccess(known -> known.forEach(d -> gauges.seedHealth(d.deviceId(), d.state())))
        .onFailure(e -> LOG.warn("metrics: the health gauges start empty; reading the stored verdicts failed", e));
    return gauges;
  }

  /** Counts results stored, new ones only: a redelivered result is not counted again. */
  Counter ingested() {
    return Counter.builder("busload_results_ingested").description("results stored (new, not redelivered)")
        .register(registry);
  }

  /** Agents online and runs queued: the fleet is read on each scrape, the queue as {@link #readQueued} last found. */
  void fleet(Fleet fleet, Clock clock) {
    Gauge.builder("busload_agents_online", fleet, f -> f.view(clock.instant()).stream().filter(a -> a.online()).count())
        .description("agents heard from within the offline limit").register(registry);
    Gauge.builder("busload_runs_queued", queued, AtomicLong::get).description("runs waiting in device queues")
        .register(registry);
  }

  void batcher(ResultBatcher batcher) {
    Gauge.builder("busload_results_pending", batcher, ResultBatcher::pending)
        .description("results waiting for their batch").register(registry);
    Gauge.builder("busload_results_refused_busy", batcher, ResultBatcher::refusedBusy)
        .description("results answered busy (their agents retry) since the start").register(registry);
  }

  void guards(ConnectionGuard restGuard, ConnectionGuard bridgeGuard) {
    for (var guarded : Map.of("rest", restGuard, "bridge", bridgeGuard).entrySet()) {
      Gauge.builder("busload_connections_refused", guarded.getValue(), ConnectionGuard::refused)
          .tag("server", guarded.getKey()).description("connections over the per-client cap").register(registry);
      Gauge.builder("busload_connections_timed_out", guarded.getValue(), ConnectionGuard::timedOut)
          .tag("server", guarded.getKey()).description("connections closed before a complete request")
          .register(registry);
    }
  }

  /**
   * Reads the number of queued runs from the store on a worker, for the queue-depth gauge; the verticle calls it every
   * few seconds, so a scrape never waits on the store.
   */
  void readQueued(Vertx vertx, SweepStore sweeps) {
    vertx.executeBlocking(sweeps::queuedRunCount, false).onSuccess(queued::set);
  }
}
