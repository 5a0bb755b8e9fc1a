package io.busload.agent.cluster;

import io.busload.agent.crosscheck.ProfileCounters;
import io.busload.agent.crosscheck.ProfileReport;
import io.busload.agent.crosscheck.Profiler;
import io.busload.agent.device.Device;
import io.busload.agent.device.HostActivity;
import io.busload.agent.device.DeviceWorker;
import io.busload.agent.measure.FreshProcess;
import io.busload.agent.measure.Measurement;
import io.busload.agent.measure.Plan;
import io.busload.agent.measure.Progress;
import io.busload.agent.measure.RunContext;
import io.busload.kernels.Catalog;
import io.busload.kernels.SuiteOptions;
import io.busload.protocol.Ack;
import io.busload.protocol.Counters;
import io.busload.protocol.Addresses;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.eventbus.ReplyException;
import io.busload.protocol.AgentHello;
import io.busload.protocol.Heartbeat;
import io.busload.protocol.KernelResult;
import io.busload.protocol.SlurmJob;
import io.busload.protocol.Protocol;
import io.busload.protocol.RunRequest;
import io.busload.protocol.RunStatus;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The agent on the event bus, as docs/contract.md says; measuring runs on each device's worker thread. */
public final class AgentVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(AgentVerticle.class);

  private final AgentConfig config;
  private final Map<String, Slot> slots = new LinkedHashMap<>();
  /** This agent's devices, so that a result says which others measured beside it. */
  private final HostActivity activity = new HostActivity();
  private final java.util.Set<Delivery> deliveries = new java.util.HashSet<>();
  private Outbox outbox;
  private FleetLink link;
  private int unansweredHellos;
  private boolean helloAcked;
  private final AcceptedRuns accepted = new AcceptedRuns();

  private final Function<Vertx, FleetLink> links;
  /** Tagged on every result this agent measures; null outside a Slurm job. */
  private volatile SlurmJob slurmJob;
  /** Runs accepted and not yet ended (event loop only). */
  private int activeRuns;
  /**
   * When the last run ended, or the coordinator first acknowledged this agent; null before that and while a run is
   * active (event loop only).
   */
  private Instant idleSince;

  /** An agent that is a member of the cluster it was deployed on. */
  public AgentVerticle(AgentConfig config) {
    this(config, ClusterLink::new);
  }

  /** An agent that reaches the coordinators through {@code links} (made on start, with this verticle's Vert.x). */
  public AgentVerticle(AgentConfig config, Function<Vertx, FleetLink> links) {
    this.config = config;
    this.links = links;
  }

  /** One device: its worker and what it is doing now (read by heartbeats on the event loop). */
  private static final class Slot {
    final DeviceWorker worker;
    volatile String runId;
    volatile String kernel;
    volatile int completed;
    volatile int total;

    Slot(DeviceWorker worker) {
      this.worker = worker;
    }

    Heartbeat.DeviceState state() {
      return new Heartbeat.DeviceState(worker.device().info().id(), runId, kernel, completed, total);
    }
  }

  /** Every result measured from now on carries {@code job}: the agent runs inside that Slurm job. */
  public AgentVerticle inSlurmJob(SlurmJob job) {
    this.slurmJob = job;
    return this;
  }

  /**
   * Since when this agent, acknowledged by a coordinator, has measured nothing and holds no result unacked; empty
   * before the first acknowledgement, while a run is active or while a result waits in the outbox. Must be called on the verticle's context (an ephemeral agent asks before it exits).
   */
  public Future<java.util.Optional<Instant>> idleSince() {
    if (activeRuns > 0 || idleSince == null) {
      return Future.succeededFuture(java.util.Optional.empty());
    }
    Instant since = idleSince;
    return vertx.executeBlocking(() -> outbox.pending().isEmpty(), false)
        .map(empty -> empty && activeRuns == 0 && since.equals(idleSince) ? java.util.Optional.of(since)
            : java.util.Optional.<Instant>empty());
  }

  /**
   * Runs {@code then} once, on this verticle's context, when {@link #idleSince} has lasted {@code idle}; checked every
   * second.
   */
  public void whenIdleFor(java.time.Duration idle, Runnable then) {
    context.runOnContext(v -> {
      boolean[] done = {false};
      vertx.setPeriodic(1_000, timer -> idleSince().onSuccess(since -> {
        if (!done[0] && since.isPresent() && !since.get().plus(idle).isAfter(Instant.now())) {
          done[0] = true;
          vertx.cancelTimer(timer);
          then.run();
        }
      }));
    });
  }

  @Override
  public Future<?> start() {
    return vertx.executeBlocking(() -> {
      Outbox opened = Outbox.open(config.outbox());
      return Map.entry(opened, opened.pending());
    }).compose(opened -> {
      link = links.apply(vertx);
      outbox = opened.getKey();
      // Drained first: whatever an earlier run of this agent measured and never saw acked is queued before
      // anything new can be measured (a crash or a cut loses nothing).
      List<KernelResult> pending = opened.getValue();
      if (!pending.isEmpty()) {
        LOG.info("outbox {}: resending {} result(s) not acked before", outbox.dir(), pending.size());
        Delivery drain = delivery();
        pending.forEach(result -> deliverResult(drain, result));
      }
      for (Device device : config.devices()) {
        slots.put(device.info().id(), new Slot(new DeviceWorker(device)));
      }
      vertx.setPeriodic(config.heartbeatEvery().toMillis(), id -> heartbeat());
      hello();
      return link.serveRuns(config.agentId(), this::onRun);
    });
  }

  /** Results still in the outbox: waiting for their ack (tests and operators read this). */
  public Outbox outbox() {
    return outbox;
  }

  @Override
  public Future<?> stop() {
    deliveries.forEach(Delivery::close);
    if (link != null) {
      link.close();
    }
    // Closing frees device memory on each worker thread and may wait for it: off the event loop.
    return vertx.executeBlocking(() -> {
      slots.values().forEach(slot -> slot.worker.close());
      return null;
    });
  }

  private void hello() {
    AgentHello hello = new AgentHello(Protocol.SCHEMA_VERSION, config.agentId(), config.host(), config.agentVersion(),
        config.fatbinHash(), config.devices().stream().map(Device::info).toList(), Instant.now(), config.labels());
    link.request(Addresses.AGENT_HELLO, hello, 5_000)
        .onComplete(reply -> {
          boolean ok = reply.succeeded() && reply.result().ok();
          unansweredHellos = reply.failed() && reply.cause() instanceof ReplyException e
              && e.failureType() == ReplyFailure.TIMEOUT ? unansweredHellos + 1 : 0;
          link.hellosUnanswered(unansweredHellos, Addresses.AGENT_HELLO);
          if (ok && !helloAcked) {
            LOG.info("coordinator acknowledged agent {} with {} device(s)", config.agentId(), slots.size());
            if (activeRuns == 0) {
              // Idle counts from here: a slow connection at start (a TLS handshake on a loaded node) is not idleness.
              idleSince = Instant.now();
            }
          } else if (!ok) {
            LOG.info("hello not acknowledged yet ({}); retrying", reply.succeeded()
                ? reply.result().reason() : reply.cause().getMessage());
          }
          helloAcked = helloAcked || ok;
          // Until acked every 2 s; then every 30 s, so a restarted coordinator learns of us again.
          vertx.setTimer((ok ? config.helloEvery() : config.helloRetry()).toMillis(), t -> hello());
        });
  }

  private void heartbeat() {
    List<Heartbeat.DeviceState> states = slots.values().stream().map(Slot::state).toList();
    link.send(Addresses.AGENT_HEARTBEAT,
        new Heartbeat(Protocol.SCHEMA_VERSION, config.agentId(), Instant.now(), states));
  }

  private void onRun(RunRequest request, Consumer<Ack> answer) {
    if (accepted.repeated(request.runId())) {
      LOG.info("run {} requested again: acked, not measured twice", request.runId());
      answer.accept(Ack.ok(request.runId()));
      return;
    }
    String refusal = refusal(request);
    if (refusal != null) {
      LOG.warn("run {} refused: {}", request.runId(), refusal);
      answer.accept(Ack.refused(request.runId(), refusal));
      return;
    }
    accepted.accept(request.runId());
    answer.accept(Ack.ok(request.runId()));
    Slot slot = slots.get(request.deviceId());
    Device device = slot.worker.device();
    SuiteOptions options = SuiteOptions.parse(request.suiteOptions());
    boolean profile = request.profile();
    int planned = Catalog.cases(request.suite(), options).size();
    Delivery delivery = delivery();
    RunContext runContext = new RunContext(request.runId(), request.sweepId(), config.agentId(), config.agentVersion());
    LOG.info("run {} accepted: suite {} on {} ({} kernels)", request.runId(), request.suite(), device.info().id(),
        planned);

    activeRuns++;
    idleSince = null;
    slot.worker.submit(() -> {
      // Sizes need the device's free memory: resolved on its thread; a size that does not fit fails the run here.
      Plan plan = Plan.resolve(request.suite(), options, device.limits(), device.info().id());
      slot.runId = request.runId();
      slot.total = plan.cases().size();
      slot.completed = 0;
      Map<String, Counters> counters = profile ? profile(request, plan, device, slot) : Map.of();
      FreshProcess fresh = new FreshProcess(request.suite(), device.shortId(), request.suiteOptions());
      return new Measurement(device, runContext, config.fatbinHash()).sharing(activity).run(plan, new Progress() {
        @Override
        public void starting(String kernel, int completed, int total) {
          slot.kernel = kernel;
          slot.completed = completed;
          context.runOnContext(v -> status(delivery, request, RunStatus.State.RUNNING, completed, total, null));
        }

        @Override
        public void measured(KernelResult measured, int completed, int total) {
          slot.completed = completed;
          KernelResult result = ProfileCounters.attach(measured, counters).withSlurmJob(slurmJob);
          // On disk before the first send, on this worker thread (fsync blocks): if the write fails, so does the run.
          outbox.put(result);
          context.runOnContext(v -> {
            deliverResult(delivery, result);
            status(delivery, request, RunStatus.State.RUNNING, completed, total, null);
          });
        }
      }, k -> fresh.run(k).stream().map(r -> FreshProcess.stamped(r, runContext)).toList());
    }).whenComplete((results, error) -> {
      int total = planned;
      slot.runId = null;
      slot.kernel = null;
      slot.completed = 0;
      slot.total = 0;
      context.runOnContext(v -> {
        if (--activeRuns == 0) {
          idleSince = Instant.now();
        }
        if (error == null) {
          long invalid = results.stream().filter(r -> r.status().failed()).count();
          status(delivery, request, RunStatus.State.DONE, results.size(), total,
              invalid == 0 ? null : invalid + " of " + total + " results invalid");
        } else {
          Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
          LOG.warn("run {} failed", request.runId(), cause);
          status(delivery, request, RunStatus.State.FAILED, 0, total, String.valueOf(cause.getMessage()));
        }
      });
    });
  }

  /**
   * The counters of every kernel case of the plan, from one ncu pass of the native harness, before anything is
   * timed (the timed launches then run unprofiled, on an otherwise idle device). A profile that yields no report
   * fails the run: it was asked for counters, and results without them would read as unprofiled.
   */
  private Map<String, Counters> profile(RunRequest request, Plan plan, Device device, Slot slot) {
    slot.kernel = "profiling under ncu";
    java.io.StringWriter log = new java.io.StringWriter();
    java.util.Optional<ProfileReport.Report> report;
    try (java.io.PrintWriter out = new java.io.PrintWriter(log)) {
      report = Profiler.profile(plan, device.shortId(), Profiler.harness(null), null, out);
    }
    LOG.info("run {}: {}", request.runId(), log.toString().strip());
    if (report.isEmpty()) {
      throw new IllegalStateException("profile=true, but nothing was profiled: " + log.toString().strip());
    }
    report.get().problems().forEach(p -> LOG.warn("run {}: profile: {}", request.runId(), p));
    LOG.info("run {}: counters of {} case(s), {} flagged against the model", request.runId(),
        report.get().rows().size(), report.get().rows().stream().filter(ProfileReport.Row::flagged).count());
    return ProfileCounters.byCase(report.get());
  }

  private Delivery delivery() {
    Delivery delivery = new Delivery(vertx, link, config.requestTimeout());
    deliveries.add(delivery);
    return delivery;
  }

  /**
   * Sends until an ok ack names the result, then deletes its outbox file. A result the coordinator refuses stays
   * in the outbox and goes to a lane of its own, tried again at most every 10 minutes (an upgraded coordinator
   * may take it), while its run's later results and statuses go on.
   */
  private void deliverResult(Delivery delivery, KernelResult result) {
    delivery.enqueue(Addresses.RESULTS, result, result.id().toString(), true)
        .recover(e -> {
          if (!(e instanceof Delivery.Refused)) {
            return Future.failedFuture(e);
          }
          LOG.error("result {} ({} of run {}) refused by the coordinator: {}; it stays in the outbox and is tried"
              + " again apart from its run, at most {} min apart", result.id(), result.kernel(), result.runId(),
              e.getMessage(), Delivery.REFUSED_MAX_BACKOFF_MS / 60_000);
          Delivery lane = Delivery.forRefused(vertx, link, config.requestTimeout());
          deliveries.add(lane);
          return lane.enqueue(Addresses.RESULTS, result, result.id().toString(), true);
        })
        .compose(acked -> vertx.executeBlocking(() -> outbox.remove(result.id()), false))
        .onFailure(e -> LOG.error("result {} acked but its outbox file could not be deleted (it will be resent, "
            + "harmlessly): {}", result.id(), e.getMessage()));
  }

  /** Why a run cannot be accepted, or null: schema, device, suite and options, checked before the ack. */
  private String refusal(RunRequest request) {
    if (request.schemaVersion() > Protocol.SCHEMA_VERSION) {
      return "schema version " + request.schemaVersion() + " is newer than " + Protocol.SCHEMA_VERSION;
    }
    if (!slots.containsKey(request.deviceId())) {
      return "unknown device '" + request.deviceId() + "'; known: " + String.join(", ", slots.keySet());
    }
    boolean profile;
    try {
      profile = request.profile();
      Catalog.cases(request.suite(), SuiteOptions.parse(request.suiteOptions()));
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
    if (profile) {
      // Refused where counters cannot be had, rather than measured without the counters that were asked for.
      return Profiler.unavailable(slots.get(request.deviceId()).worker.device().shortId(), Profiler.harness(null))
          .orElse(null);
    }
    return null;
  }

  private void status(Delivery delivery, RunRequest request, RunStatus.State state, int completed, int total,
      String message) {
    RunStatus status = new RunStatus(Protocol.SCHEMA_VERSION, request.runId(), request.sweepId(), config.agentId(),
        request.deviceId(), state, completed, total, message, Instant.now());
    delivery.enqueue(Addresses.RUN_STATUS, status, request.runId() + " " + state, false);
  }

}
