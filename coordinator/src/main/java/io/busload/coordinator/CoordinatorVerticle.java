package io.busload.coordinator;

import io.busload.coordinator.analysis.HealthWatch;
import io.busload.coordinator.analysis.RegressionWatch;
import io.busload.coordinator.store.HealthStore;
import io.busload.coordinator.api.ApiTokens;
import io.busload.coordinator.api.TokenResource;
import io.busload.coordinator.store.ApiTokenStore;
import io.busload.coordinator.api.AnalysisResource;
import io.busload.coordinator.api.BackupResource;
import io.busload.coordinator.api.AnalysisPool;
import io.busload.coordinator.api.CertificateResource;
import io.busload.coordinator.api.FleetResource;
import io.busload.coordinator.api.NotificationResource;
import io.busload.analysis.cohort.CohortCheck;
import io.busload.analysis.cohort.CohortFlag;
import io.busload.analysis.cohort.DeviceFigure;
import io.busload.coordinator.analysis.CohortFigures;
import io.busload.coordinator.notify.CohortState;
import io.busload.coordinator.notify.Notifier;
import io.busload.coordinator.store.NotificationStore;
import io.busload.coordinator.api.PushResource;
import io.busload.coordinator.push.Pushing;
import io.busload.coordinator.store.PushStore;
import io.busload.coordinator.api.HealthResource;
import io.busload.coordinator.api.VersionResource;
import io.busload.coordinator.api.RestApi;
import io.busload.coordinator.api.VerdictResource;
import io.busload.coordinator.api.ResultResource;
import io.busload.coordinator.api.RunResource;
import io.busload.coordinator.api.ScheduleResource;
import io.busload.coordinator.api.SweepResource;
import io.busload.coordinator.fleet.ResultBatcher;
import io.busload.coordinator.fleet.ResultGauges;
import io.busload.coordinator.schedule.Leadership;
import io.busload.coordinator.schedule.SampleAging;
import io.busload.coordinator.schedule.Scheduler;
import io.busload.coordinator.store.ComparisonStore;
import io.busload.coordinator.store.VerdictStore;
import io.busload.coordinator.store.ScheduleStore;
import io.micrometer.core.instrument.Counter;
import io.busload.coordinator.fleet.CertificateExpiry;
import io.busload.coordinator.fleet.Fleet;
import io.busload.coordinator.fleet.Intake;
import io.busload.coordinator.fleet.Refusals;
import io.busload.protocol.cluster.ClusterSettings;
import io.busload.coordinator.fleet.WireRefusals;
import io.busload.coordinator.fleet.RunQueues;
import io.busload.coordinator.fleet.Slurm;
import io.busload.coordinator.fleet.SlurmJobs;
import io.busload.coordinator.fleet.SlurmSettings;
import io.busload.coordinator.store.KnownAgent;
import io.busload.coordinator.store.Run;
import io.busload.coordinator.store.AgentStore;
import io.busload.coordinator.store.Database;
import io.busload.coordinator.store.LeaderLease;
import io.busload.coordinator.store.SampleRetention;
import io.busload.coordinator.store.ResultStore;
import io.busload.coordinator.store.SweepStore;
import io.busload.coordinator.store.ViewStore;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator: store, fleet state, run queues, event-bus intake and REST API in one verticle.
 *
 * <p>One verticle instance on purpose: its event loop is the only thread that touches {@link Fleet} and
 * {@link RunQueues}, which is what keeps "one run at a time per device" free of locks and races. The
 * database work, which blocks, runs on worker threads.
 *
 * <p>It builds the parts, connects them, runs their once-a-second tick and stops them in order. Leading or standing
 * by is {@link LeaderRole}'s, the heartbeats a standby shows are {@link HeartbeatMirror}'s, renewed and expiring
 * certificates are {@link CertificateWatch}'s, and the meters that read several parts are {@link
 * CoordinatorMetrics}'; all of them run on this verticle's event loop.
 */
public final class CoordinatorVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(CoordinatorVerticle.class);
  /** Often enough to see an agent go offline within a second of the 10 s limit. */
  private static final long TICK_MILLIS = 1000;
  /** The cohort notices compare the figures of this many days, as GET /api/cohort-flags does by default. */
  private static final java.time.Duration COHORT_DAYS = java.time.Duration.ofDays(30);

  private final CoordinatorSettings settings;
  private final Clock clock;
  private Database database;
  private AgentStore agents;
  private SweepStore sweeps;
  private HttpServer server;
  private ApiTokens tokens;
  private io.busload.coordinator.fleet.AgentBridge bridge;
  private CertificateWatch certificates;
  private int bridgePort = -1;
  private long timer = -1;
  private long ticks;
  private final CoordinatorMetrics metrics = new CoordinatorMetrics();
  /** The queue-depth gauge reads the store every few seconds, not on every scrape. */
  private static final int QUEUE_GAUGE_TICKS = 5;
  private LeaderLease lease;
  private LeaderRole role;
  private HeartbeatMirror mirror;
  private WireRefusals wire;
  private io.vertx.core.WorkerExecutor ingestWorkers;
  private io.vertx.core.WorkerExecutor analysisWorkers;
  private ConnectionGuard restGuard;
  private ConnectionGuard bridgeGuard;
  private final java.util.Optional<SlurmSettings> slurm;
  /** Null without Slurm. */
  private SlurmJobs slurmJobs;

  public CoordinatorVerticle(CoordinatorSettings settings) {
    this(settings, Clock.systemUTC());
  }

  /** With a clock the caller controls (tests move it to make schedules fall due). */
  public CoordinatorVerticle(CoordinatorSettings settings, Clock clock) {
    this(settings, clock, java.util.Optional.empty());
  }

  /** With Slurm: sweeps may name a partition, whose nodes get a job each ({@link SlurmJobs}). */
  public CoordinatorVerticle(CoordinatorSettings settings, Clock clock, java.util.Optional<SlurmSettings> slurm) {
    this.settings = settings;
    this.clock = clock;
    this.slurm = slurm;
  }

  /** The agents' bridge port actually bound, or -1 when this coordinator serves none. */
  public int bridgePort() {
    return bridgePort;
  }

  /** The REST port actually bound (differs from the setting when it was 0). */
  public int httpPort() {
    return server.actualPort();
  }

  @Override
  public Future<?> start() {
    record Remembered(Database database, LeaderLease lease, List<KnownAgent> agents, List<Run> active,
        ApiTokens tokens, HttpServerOptions http, io.busload.protocol.cluster.FleetTls.Loaded fleetTls) {}
    return vertx.executeBlocking(() -> {
      HttpServerOptions http = new HttpServerOptions().setHost(settings.httpHost()).setPort(settings.httpPort());
      if (settings.restTls()) {
        settings.cluster().tls().load(ClusterSettings.COORDINATOR).applyHttps(http);
      }
      // The bridge serves with these, and their expiry is watched with or without a bridge.
      io.busload.protocol.cluster.FleetTls.Loaded fleetTls = settings.cluster().tls() == null ? null
          : settings.cluster().tls().load(ClusterSettings.COORDINATOR);
      Database opened = Database.open(settings.database(), settings.dataDir());
      LeaderLease taken = new LeaderLease(opened);
      try {
        ApiTokens tokens = ApiTokens.open(new ApiTokenStore(opened), settings.apiTokensFile(),
            settings.firstApiTokenFile(), System.out, clock);
        LOG.info("REST API: {} API token(s) in the store; reads are open, writes need a token's scope",
            tokens.size());
        taken.renew();
        return new Remembered(opened, taken, new AgentStore(opened).agents(), new SweepStore(opened).activeRuns(),
            tokens, http, fleetTls);
      } catch (RuntimeException e) {
        taken.close();
        opened.close();
        throw e;
      }
    }).compose(remembered -> {
      database = remembered.database();
      lease = remembered.lease();
      agents = new AgentStore(database);
      sweeps = new SweepStore(database);
      Fleet fleet = new Fleet();
      remembered.agents().forEach(fleet::remember);
      Leadership leadership = new Leadership(lease);
      role = new LeaderRole(vertx, lease, leadership, agents, sweeps, fleet);
      mirror = new HeartbeatMirror(vertx, agents, fleet, clock, role);
      RunQueues queues = new RunQueues(vertx, sweeps, fleet, clock, role::leading);
      queues.restore(remembered.active());
      ResultStore results = new ResultStore(database);
      Limits limits = settings.limits();
      // Results commit on workers and connections of their own; the analysis reads wait behind each other only.
      ingestWorkers = vertx.createSharedWorkerExecutor("busload-ingest", limits.ingestWorkers());
      analysisWorkers = vertx.createSharedWorkerExecutor("busload-analysis", limits.analysisWorkers());
      Database analysisDb = database.apart("busload-analysis", limits.analysisConnections());
      AnalysisPool analysisPool = new AnalysisPool(analysisWorkers, limits.analysisWorkers() + limits.analysisQueue(),
          limits.retryAfter());
      ComparisonStore analysis = new ComparisonStore(database);
      ScheduleStore schedules = new ScheduleStore(database);
      VerdictStore verdicts = new VerdictStore(database);
      RegressionWatch regressions = new RegressionWatch(vertx, analysis, verdicts, clock);
      HealthStore health = new HealthStore(database);
      HealthWatch healthWatch = new HealthWatch(vertx, health, clock);
      NotificationStore notifications = new NotificationStore(database);
      CohortCheck cohortCheck = new CohortCheck(CohortCheck.Settings.defaults());
      ResultGauges resultGauges = metrics.resultGauges(results, health, analysisWorkers,
          clock.instant().minus(COHORT_DAYS));
      Notifier notifier = new Notifier(vertx, notifications, verdicts, agents, sweeps, () -> {
        List<DeviceFigure> figures = CohortFigures.since(verdicts, clock.instant().minus(COHORT_DAYS));
        List<CohortFlag> flags = cohortCheck.flags(figures);
        resultGauges.cohort(figures.stream().map(DeviceFigure::deviceId).collect(Collectors.toSet()),
            flags.stream().collect(Collectors.groupingBy(CohortFlag::deviceId, Collectors.counting())));
        return CohortState.of(figures, flags);
      }, clock);
      Counter ingested = metrics.ingested();
      metrics.fleet(fleet, clock);
      Refusals refusals = new Refusals(metrics.registry());
      ResultBatcher batcher = new ResultBatcher(vertx, ingestWorkers, limits.pendingResults(), results, agents, sweeps,
          refusals, clock, settings.measuredAtWindow(), stored -> {
        ingested.increment(stored.size());
        resultGauges.stored(stored);
        regressions.check(stored).onSuccess(found -> notifier.changePoints(found.changePoints()));
        healthWatch.check(stored).onSuccess(judged -> {
          judged.forEach(v -> resultGauges.health(v.now().deviceId(), v.now().state()));
          notifier.healthChanges(judged);
        });
      });
      java.time.Duration warnBefore = CertificateExpiry.warnBefore(System.getenv());
      certificates = new CertificateWatch(vertx, settings, notifier, remembered.fleetTls() == null ? null
          : new CertificateExpiry(clock, warnBefore, remembered.fleetTls()));
      certificates.start(metrics.registry());
      metrics.batcher(batcher);
      restGuard = new ConnectionGuard(vertx, "REST", limits.restConnectionsPerClient(), limits.headerTimeout(),
          limits.retryAfter());
      bridgeGuard = new ConnectionGuard(vertx, "bridge", limits.bridgeConnectionsPerClient(), limits.headerTimeout(),
          limits.retryAfter());
      metrics.guards(restGuard, bridgeGuard);
      wire = WireRefusals.install(vertx, refusals);
      Intake intake = new Intake(vertx, agents, sweeps, fleet, queues, clock, batcher, refusals);
      PushStore pushes = new PushStore(database);
      tokens = remembered.tokens();
      tokens.start(vertx);
      RestApi api = new RestApi(vertx, remembered.tokens(), metrics.registry(), List.of(
          new FleetResource(vertx, fleet, agents, health, clock),
          new SweepResource(vertx, sweeps, fleet, queues, clock, slurm.isPresent() ? new Slurm() : null),
          new RunResource(vertx, sweeps),
          new ResultResource(vertx, results, new ViewStore(database)),
          new ScheduleResource(vertx, schedules, agents, clock),
          new AnalysisResource(vertx, new ComparisonStore(analysisDb), analysisPool),
          new VerdictResource(vertx, agents, new ComparisonStore(analysisDb), new VerdictStore(analysisDb), clock, analysisPool,
              limits.annotationsTtl()),
          new PushResource(vertx, new Pushing(vertx, ingestWorkers, pushes, batcher, clock), pushes,
              limits.concurrentPushes(), limits.retryAfter()),
          new TokenResource(vertx, new ApiTokenStore(database), remembered.tokens(), clock),
          new NotificationResource(vertx, notifications, clock),
          new CertificateResource(certificates::near, warnBefore),
          new BackupResource(vertx, database.apart("busload-backup", 1), settings.dataDir()),
          new HealthResource(vertx, database), new VersionResource()));
      // Raw samples age out on the leader, off the event loop; a standby's run does nothing.
      SampleAging aging = new SampleAging(new SampleRetention(database), settings.sampleRetention(), clock,
          role::leading, metrics.registry());
      vertx.setPeriodic(Duration.ofMinutes(1).toMillis(), SampleAging.EVERY.toMillis(),
          id -> vertx.executeBlocking(aging::run, false));
      Scheduler scheduler = new Scheduler(vertx, agents, schedules, leadership, clock,
          sweep -> queues.wake(sweep.runs().stream().map(r -> r.deviceId()).toList()));
      slurm.ifPresent(s -> {
        slurmJobs = new SlurmJobs(vertx, sweeps, fleet, clock, s, new Slurm(), () -> s.bridge() != null ? s.bridge()
            : settings.cluster().host() + ":" + bridgePort, role::leading);
        LOG.info("Slurm: sweeps may name a partition (slurm:PARTITION); jobs' files in {}, agents from {}",
            s.spool(), s.bundle());
      });
      timer = vertx.setPeriodic(TICK_MILLIS, id -> {
        tick(fleet, queues, scheduler);
        if (slurmJobs != null) {
          slurmJobs.tick(clock.instant());
        }
        notifier.tick(role.leading());
      });
      LOG.info("remembered {} agent(s), {} run(s) in progress", remembered.agents().size(),
          remembered.active().size());
      Future<?> intakeReady = role.start(queues, intake);
      // Every coordinator serves the bridge, leading or not: its relays reach the leader's intake through the cluster.
      Future<?> bridged = intakeReady;
      if (settings.bridgePort() != CoordinatorSettings.NO_BRIDGE) {
        bridge = new io.busload.coordinator.fleet.AgentBridge(vertx, remembered.fleetTls(), refusals)
            .certificates(certificates::agent)
            .limit(bridgeGuard::onConnection, bridgeGuard::guard, limits.idleTimeout(),
                limits.bridgeConnectionsPerClient());
        bridged = intakeReady.compose(ready -> bridge.start(settings.cluster().host(), settings.bridgePort()))
            .onSuccess(port -> bridgePort = port);
      }
      return bridged
          .compose(ready -> vertx.createHttpServer(ConnectionGuard.idle(remembered.http(), limits.idleTimeout()))
              .connectionHandler(restGuard::onConnection)
              .requestHandler(restGuard.guard(api.router()))
              // A request the HTTP decoder refused (a request line or headers over Vert.x's limits) is answered by
              // the router too, as problem+json naming what was too long, and still counts against its client.
              .invalidRequestHandler(restGuard.guard(api.router()))
              .listen())
          .onSuccess(listening -> {
            server = listening;
            certificates.reload(bridge, listening);
            LOG.info("REST API on {}://{}:{}/api/agents, data in {}", settings.restTls() ? "https" : "http",
                settings.httpHost(), listening.actualPort(), settings.dataDir());
            queues.wake(fleet.devices());
          });
    });
  }

  private void tick(Fleet fleet, RunQueues queues, Scheduler scheduler) {
    Instant now = clock.instant();
    role.renew();
    role.act();
    scheduler.tick();
    mirror.tick(ticks, now);
    if (ticks++ % QUEUE_GAUGE_TICKS == 0) {
      metrics.readQueued(vertx, sweeps);
      if (role.leading()) {
        // Sweeps created through another coordinator's REST API land in the shared store unseen by this one.
        queues.wake(fleet.devices());
      }
    }
    for (String agentId : fleet.expire(now)) {
      Instant lastSeen = fleet.lastSeen(agentId).orElse(now);
      LOG.warn("agent {} offline: no heartbeat since {}", agentId, lastSeen);
      vertx.executeBlocking(() -> {
        agents.touchAgent(agentId, lastSeen);
        return null;
      }, false).onFailure(e -> LOG.error("cannot record when agent {} was last seen", agentId, e));
    }
    if (role.leading()) {
      queues.expire(now);
    }
    queues.dispatch();
  }

  @Override
  public Future<?> stop() {
    if (wire != null) {
      wire.close();
    }
    if (timer >= 0) {
      vertx.cancelTimer(timer);
    }
    if (certificates != null) {
      certificates.stop();
    }
    if (tokens != null) {
      tokens.stop();
    }
    Future<Void> closed = (bridge == null ? Future.<Void>succeededFuture() : bridge.stop())
        .eventually(() -> server == null ? Future.succeededFuture() : server.close());
    closed = closed.eventually(() -> {
      if (ingestWorkers != null) {
        ingestWorkers.close();
      }
      if (analysisWorkers != null) {
        analysisWorkers.close();
      }
      return Future.succeededFuture();
    });
    return closed.eventually(() -> database == null ? Future.succeededFuture() : vertx.executeBlocking(() -> {
      // Closing the lease's session frees the lock now, so a standby leads on its next tick.
      lease.close();
      database.close();
      return null;
    }));
  }
}
