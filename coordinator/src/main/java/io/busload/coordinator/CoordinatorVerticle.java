package io.busload.coordinator;

import io.busload.coordinator.analysis.RegressionWatch;
import io.busload.coordinator.api.ApiTokens;
import io.busload.coordinator.api.AnalysisResource;
import io.busload.coordinator.api.FleetResource;
import io.busload.coordinator.api.PushResource;
import io.busload.coordinator.push.Pushing;
import io.busload.coordinator.store.Pushes;
import io.busload.coordinator.api.HealthResource;
import io.busload.coordinator.api.RestApi;
import io.busload.coordinator.api.VerdictResource;
import io.busload.coordinator.api.ResultResource;
import io.busload.coordinator.api.RunResource;
import io.busload.coordinator.api.ScheduleResource;
import io.busload.coordinator.api.SweepResource;
import io.busload.coordinator.fleet.ResultBatcher;
import io.busload.coordinator.schedule.Leadership;
import io.busload.coordinator.schedule.Scheduler;
import io.busload.coordinator.store.Analysis;
import io.busload.coordinator.store.VerdictStore;
import io.busload.coordinator.store.Schedules;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.concurrent.atomic.AtomicLong;
import io.busload.coordinator.fleet.Fleet;
import io.busload.coordinator.fleet.Intake;
import io.busload.coordinator.fleet.Refusals;
import io.busload.protocol.cluster.ClusterSettings;
import io.busload.coordinator.fleet.WireRefusals;
import io.busload.coordinator.fleet.RunQueues;
import io.busload.coordinator.store.KnownAgent;
import io.busload.coordinator.store.Run;
import io.busload.coordinator.store.AgentStore;
import io.busload.coordinator.store.Database;
import io.busload.coordinator.store.ResultStore;
import io.busload.coordinator.store.SweepStore;
import io.busload.coordinator.store.ViewQueries;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator: store, fleet state, run queues, event-bus intake and REST API in one verticle.
 *
 * <p>One verticle instance on purpose: its event loop is the only thread that touches {@link Fleet} and
 * {@link RunQueues}, which is what keeps "one run at a time per device" free of locks and races. The
 * database work, which blocks, runs on worker threads.
 */
public final class CoordinatorVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(CoordinatorVerticle.class);
  /** Often enough to see an agent go offline within a second of the 10 s limit. */
  private static final long TICK_MILLIS = 1000;

  private final CoordinatorSettings settings;
  private final Clock clock;
  private Database database;
  private AgentStore agents;
  private SweepStore sweeps;
  private HttpServer server;
  private io.busload.coordinator.fleet.AgentBridge bridge;
  private int bridgePort = -1;
  private long timer = -1;
  private long ticks;
  private final AtomicLong queued = new AtomicLong();
  private final PrometheusMeterRegistry metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  /** The queue-depth gauge reads the store every few seconds, not on every scrape. */
  private static final int QUEUE_GAUGE_TICKS = 5;
  /** How often (in ticks) the leader writes agents' last heartbeats and a standby reads them. */
  private static final int MIRROR_TICKS = 2;
  private Leadership leadership;
  private Intake intake;
  /** The intake's consumers while this coordinator leads; null while it follows. */
  private List<MessageConsumer<?>> consumers;
  /** Leading now, as last seen by {@link #lead}; a change of leader is acted on once. */
  private boolean leading;
  private boolean changingHands;
  private WireRefusals wire;
  private boolean mirroring;
  private Instant lastMirrored = Instant.EPOCH;

  public CoordinatorVerticle(CoordinatorSettings settings) {
    this(settings, Clock.systemUTC());
  }

  /** With a clock the caller controls (tests move it to make schedules fall due). */
  public CoordinatorVerticle(CoordinatorSettings settings, Clock clock) {
    this.settings = settings;
    this.clock = clock;
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
    record Remembered(Database database, List<KnownAgent> agents, List<Run> active, ApiTokens tokens,
        HttpServerOptions http, io.busload.protocol.cluster.FleetTls.Loaded bridgeTls) {}
    return vertx.executeBlocking(() -> {
      HttpServerOptions http = new HttpServerOptions().setHost(settings.httpHost()).setPort(settings.httpPort());
      if (settings.restTls()) {
        settings.cluster().tls().load(ClusterSettings.COORDINATOR).applyHttps(http);
      }
      io.busload.protocol.cluster.FleetTls.Loaded bridgeTls = settings.bridgePort() == CoordinatorSettings.NO_BRIDGE
          || settings.cluster().tls() == null ? null : settings.cluster().tls().load(ClusterSettings.COORDINATOR);
      ApiTokens tokens = ApiTokens.load(settings.apiTokensFile(), settings.firstApiTokenFile(), System.out);
      LOG.info("REST writes need one of {} API token(s) from {}", tokens.size(), settings.apiTokensFile());
      Database opened = Database.open(settings.database(), settings.dataDir());
      try {
        return new Remembered(opened, new AgentStore(opened).agents(), new SweepStore(opened).activeRuns(), tokens,
            http, bridgeTls);
      } catch (RuntimeException e) {
        opened.close();
        throw e;
      }
    }).compose(remembered -> {
      database = remembered.database();
      agents = new AgentStore(database);
      sweeps = new SweepStore(database);
      Fleet fleet = new Fleet();
      remembered.agents().forEach(fleet::remember);
      leadership = new Leadership(vertx);
      RunQueues queues = new RunQueues(vertx, sweeps, fleet, clock, () -> leading);
      queues.restore(remembered.active());
      ResultStore results = new ResultStore(database);
      Analysis analysis = new Analysis(database);
      Schedules schedules = new Schedules(database);
      VerdictStore verdicts = new VerdictStore(database);
      RegressionWatch regressions = new RegressionWatch(vertx, analysis, verdicts, clock);
      Counter ingested = Counter.builder("busload_results_ingested").description("results stored (new, not redelivered)")
          .register(metrics);
      Gauge.builder("busload_agents_online", fleet, f -> f.view(clock.instant()).stream().filter(a -> a.online()).count())
          .description("agents heard from within the offline limit").register(metrics);
      Gauge.builder("busload_runs_queued", queued, AtomicLong::get).description("runs waiting in device queues")
          .register(metrics);
      Refusals refusals = new Refusals(metrics);
      ResultBatcher batcher = new ResultBatcher(vertx, results, agents, sweeps, refusals, clock, stored -> {
        ingested.increment(stored.size());
        regressions.check(stored);
      });
      wire = WireRefusals.install(vertx, refusals);
      intake = new Intake(vertx, agents, sweeps, fleet, queues, clock, batcher, refusals);
      Pushes pushes = new Pushes(database);
      RestApi api = new RestApi(vertx, remembered.tokens(), metrics, List.of(
          new FleetResource(vertx, fleet, agents, clock),
          new SweepResource(vertx, sweeps, fleet, queues, clock),
          new RunResource(vertx, sweeps),
          new ResultResource(vertx, results, new ViewQueries(database)),
          new ScheduleResource(vertx, schedules, agents, clock),
          new AnalysisResource(vertx, analysis),
          new VerdictResource(vertx, agents, analysis, verdicts, clock),
          new PushResource(vertx, new Pushing(vertx, pushes, batcher, clock), pushes),
          new HealthResource(vertx, database)));
      Scheduler scheduler = new Scheduler(vertx, agents, schedules, leadership, clock,
          sweep -> queues.wake(sweep.runs().stream().map(r -> r.deviceId()).toList()));
      timer = vertx.setPeriodic(TICK_MILLIS, id -> tick(fleet, queues, scheduler));
      LOG.info("remembered {} agent(s), {} run(s) in progress", remembered.agents().size(),
          remembered.active().size());
      leading = leadership.leads();
      if (!leading) {
        LOG.info("another coordinator leads: this one serves the REST API and takes over intake, dispatch and"
            + " schedules when the leader leaves");
      }
      Future<?> intakeReady = leading ? intake.register().onSuccess(registered -> consumers = registered)
          : Future.succeededFuture();
      // Every coordinator serves the bridge, leading or not: its relays reach the leader's intake through the cluster.
      Future<?> bridged = intakeReady;
      if (settings.bridgePort() != CoordinatorSettings.NO_BRIDGE) {
        bridge = new io.busload.coordinator.fleet.AgentBridge(vertx, remembered.bridgeTls(), refusals);
        bridged = intakeReady.compose(ready -> bridge.start(settings.cluster().host(), settings.bridgePort()))
            .onSuccess(port -> bridgePort = port);
      }
      return bridged
          .compose(ready -> vertx.createHttpServer(remembered.http())
              .requestHandler(api.router())
              .listen())
          .onSuccess(listening -> {
            server = listening;
            LOG.info("REST API on {}://{}:{}/api/agents, data in {}", settings.restTls() ? "https" : "http",
                settings.httpHost(), listening.actualPort(), settings.dataDir());
            queues.wake(fleet.devices());
          });
    });
  }

  private void tick(Fleet fleet, RunQueues queues, Scheduler scheduler) {
    Instant now = clock.instant();
    lead(fleet, queues);
    scheduler.tick();
    if (ticks % MIRROR_TICKS == 0) {
      mirror(fleet, now);
    }
    if (ticks++ % QUEUE_GAUGE_TICKS == 0) {
      vertx.executeBlocking(sweeps::queuedRunCount, false).onSuccess(queued::set);
      if (leading) {
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
    if (leading) {
      queues.expire(now);
    }
    queues.dispatch();
  }

  /**
   * The leader keeps each agent's last heartbeat in the store; a hot standby reads it back, so that its REST API
   * (and a dashboard pointed at it) shows which agents are online, a few seconds late, rather than all offline.
   */
  private void mirror(Fleet fleet, Instant now) {
    if (mirroring) {
      return;
    }
    mirroring = true;
    if (leading) {
      Map<String, Instant> heard = fleet.heardSince(lastMirrored);
      Instant upTo = now;
      vertx.executeBlocking(() -> {
        agents.touchAgents(heard);
        return null;
      }, false).onComplete(done -> {
        mirroring = false;
        if (done.succeeded()) {
          lastMirrored = upTo;
        } else {
          LOG.warn("cannot record when agents were last heard from: {}", done.cause().getMessage());
        }
      });
    } else {
      vertx.executeBlocking(agents::agents, false).onComplete(read -> {
        mirroring = false;
        if (read.succeeded() && !leading && !changingHands) {
          read.result().forEach(known -> fleet.mirror(known, clock.instant()));
        }
      });
    }
  }

  /**
   * Two coordinators on one store: only the leader (the oldest coordinator in the cluster) takes
   * results, statuses, hellos and heartbeats, dispatches runs and fires schedules; the other is a hot standby
   * whose REST API reads the shared store. When the leader dies, the standby reads what it left in the store (the
   * agents and the runs in progress) and takes over; every agent retries what it had not seen acked, so nothing
   * sent to the dead leader is lost, and the result id makes a resend harmless.
   */
  private void lead(Fleet fleet, RunQueues queues) {
    boolean leads = leadership.leads();
    if (leads == leading || changingHands) {
      return;
    }
    changingHands = true;
    if (!leads) {
      LOG.warn("another coordinator leads now: intake, dispatch and schedules stop here");
      leading = false;
      List<MessageConsumer<?>> registered = consumers;
      consumers = null;
      Future.all(registered == null ? List.of()
              : registered.stream().map(MessageConsumer::unregister).toList())
          .onComplete(done -> changingHands = false);
      return;
    }
    record Left(List<KnownAgent> agents, List<Run> active) {}
    vertx.executeBlocking(() -> new Left(agents.agents(), sweeps.activeRuns()), false)
        .compose(left -> {
          left.agents().forEach(fleet::remember);
          leading = true;
          queues.restore(left.active());
          LOG.warn("leading now: taking over intake, dispatch and schedules ({} agent(s), {} run(s) in progress)",
              left.agents().size(), left.active().size());
          return intake.register();
        })
        .onComplete(done -> {
          changingHands = false;
          if (done.failed()) {
            // Tried again on the next tick: leading stays false until the store and the consumers are there.
            LOG.error("cannot take over as leader", done.cause());
            leading = false;
            return;
          }
          consumers = done.result();
          queues.wake(fleet.devices());
        });
  }

  @Override
  public Future<?> stop() {
    if (wire != null) {
      wire.close();
    }
    if (timer >= 0) {
      vertx.cancelTimer(timer);
    }
    Future<Void> closed = (bridge == null ? Future.<Void>succeededFuture() : bridge.stop())
        .eventually(() -> server == null ? Future.succeededFuture() : server.close());
    return closed.eventually(() -> database == null ? Future.succeededFuture() : vertx.executeBlocking(() -> {
      database.close();
      return null;
    }));
  }
}
