package io.busload.coordinator.fleet;

import io.busload.coordinator.store.QueuedRun;
import io.busload.coordinator.store.Run;
import io.busload.coordinator.store.RunState;
import io.busload.coordinator.store.SweepStore;
import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.Heartbeat;
import io.busload.protocol.Protocol;
import io.busload.protocol.RunRequest;
import io.busload.protocol.RunStatus;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One queue per device, kept in the store: a device gets its oldest queued run when it is idle and its agent
 * online, and the next one only when that run reports DONE or FAILED (one benchmark at a time per GPU:
 * docs/design/invariants.md#one-run-per-device).
 *
 * <p>Confined to the coordinator verticle's event loop like {@link Fleet}; store calls go to worker threads.
 */
public final class RunQueues {
  private static final Logger LOG = LoggerFactory.getLogger(RunQueues.class);
  /** The agent acks a run request at once (docs/contract.md); silence this long means it did not get it. */
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
  /** After a failed request, leave the device alone this long rather than hammer an agent that is leaving. */
  static final Duration RETRY_AFTER = Duration.ofSeconds(5);
  /**
   * A run is taken as lost when its agent's heartbeat says the device is idle and nothing was heard of the
   * run for this long: long enough for results still being retried from the agent's outbox to arrive.
   */
  static final Duration LOST_AFTER = Duration.ofSeconds(30);
  /** Devices whose next runs one store query reads. */
  static final int DISPATCH_BATCH = 500;

  private final Vertx vertx;
  private final SweepStore sweeps;
  private final Fleet fleet;
  private final Clock clock;
  /**
   * Only the leading coordinator dispatches: two coordinators on one store would otherwise both pick
   * the same QUEUED run and the agent would measure it twice.
   */
  private final BooleanSupplier leads;
  /** Devices with a run requested or running: the one-at-a-time rule lives in this map. */
  private final Map<String, Busy> busy = new HashMap<>();
  /** Devices that may have queued runs; cleared when the store says a device's queue is empty. */
  private final Set<String> mayHaveWork = new LinkedHashSet<>();
  private final Map<String, Instant> retryAfter = new HashMap<>();

  /** {@code runId} is null while the store is asked for the next run. */
  private record Busy(String runId, boolean accepted, Instant lastNews) {}

  /** A coordinator that always leads (one coordinator, or tests). */
  public RunQueues(Vertx vertx, SweepStore sweeps, Fleet fleet, Clock clock) {
    this(vertx, sweeps, fleet, clock, () -> true);
  }

  public RunQueues(Vertx vertx, SweepStore sweeps, Fleet fleet, Clock clock, BooleanSupplier leads) {
    this.vertx = vertx;
    this.sweeps = sweeps;
    this.fleet = fleet;
    this.clock = clock;
    this.leads = leads;
  }

  /**
   * After a restart or a takeover: runs the store has as RUNNING occupy their devices until they report or are
   * lost; whatever this coordinator believed before (as a follower it saw nothing) is replaced.
   */
  public void restore(List<Run> active) {
    Instant now = clock.instant();
    busy.clear();
    retryAfter.clear();
    for (Run run : active) {
      busy.put(run.deviceId(), new Busy(run.runId(), true, now));
    }
  }

  /**
   * A run whose agent went offline is INTERRUPTED once nothing was heard of it for
   * {@link Fleet#OFFLINE_AFTER} (the agent itself went offline after the same time without a heartbeat, so this
   * is within two heartbeat timeouts of the agent's last word). Its results stay; its device is free, and its
   * queue moves on when the agent returns. A run that still finishes (the agent was only cut off) turns DONE.
   */
  public void expire(Instant now) {
    for (Map.Entry<String, Busy> entry : List.copyOf(busy.entrySet())) {
      String deviceId = entry.getKey();
      Busy b = entry.getValue();
      Optional<String> agentId = fleet.agentOf(deviceId);
      if (b.runId() == null || !b.accepted() || !b.lastNews().plus(Fleet.OFFLINE_AFTER).isBefore(now)
          || agentId.isPresent() && fleet.online(agentId.get(), now)) {
        continue;
      }
      String agent = agentId.orElse("?");
      String message = "interrupted: agent " + agent + " offline, nothing heard of the run since " + b.lastNews()
          + "; results stored so far stay";
      LOG.warn("run {}: {}", b.runId(), message);
      end(deviceId, b.runId(), null, agent, RunState.INTERRUPTED, message);
    }
  }

  /** Something may have changed for these devices (new sweep, agent back online): look at their queues. */
  public void wake(Collection<String> deviceIds) {
    mayHaveWork.addAll(deviceIds);
    dispatch();
  }

  /**
   * Starts the next run on every idle device of an online agent that may have queued work. The store is asked for
   * the devices' next runs in batches of {@link #DISPATCH_BATCH} (one query each made a sweep to 8,000
   * devices wait behind the results its first devices sent).
   */
  public void dispatch() {
    if (!leads.getAsBoolean()) {
      return;
    }
    Instant now = clock.instant();
    Map<String, Busy> asking = new LinkedHashMap<>();
    Map<String, String> agents = new HashMap<>();
    for (String deviceId : List.copyOf(mayHaveWork)) {
      Optional<String> agentId = fleet.agentOf(deviceId);
      if (busy.containsKey(deviceId) || agentId.isEmpty() || !fleet.online(agentId.get(), now)
          || retryAfter.getOrDefault(deviceId, Instant.MIN).isAfter(now)) {
        continue;
      }
      Busy marker = new Busy(null, false, now);
      busy.put(deviceId, marker);
      asking.put(deviceId, marker);
      agents.put(deviceId, agentId.get());
    }
    List<String> devices = List.copyOf(asking.keySet());
    for (int from = 0; from < devices.size(); from += DISPATCH_BATCH) {
      List<String> batch = devices.subList(from, Math.min(devices.size(), from + DISPATCH_BATCH));
      blocking(() -> sweeps.nextQueuedRuns(batch)).onComplete(next -> {
        if (next.failed()) {
          LOG.error("cannot read the queues of {} device(s) ({}...)", batch.size(), batch.getFirst(), next.cause());
        }
        for (String deviceId : batch) {
          if (busy.get(deviceId) != asking.get(deviceId)) {
            continue;
          }
          if (next.failed()) {
            release(deviceId, true);
            continue;
          }
          QueuedRun run = next.result().get(deviceId);
          if (run == null) {
            busy.remove(deviceId);
            mayHaveWork.remove(deviceId);
          } else {
            request(agents.get(deviceId), run);
          }
        }
      });
    }
  }

  private void request(String agentId, QueuedRun run) {
    Instant now = clock.instant();
    busy.put(run.deviceId(), new Busy(run.runId(), false, now));
    RunRequest request = new RunRequest(Protocol.SCHEMA_VERSION, run.runId(), run.sweepId(), run.deviceId(),
        run.suite(), run.options());
    LOG.info("run {} of sweep {}: asking {} to run suite {} on {}", run.runId(), run.sweepId(), agentId,
        run.suite(), run.deviceId());
    vertx.eventBus().<Ack>request(Addresses.agentRuns(agentId), request,
        new DeliveryOptions().setSendTimeout(REQUEST_TIMEOUT.toMillis())).onComplete(reply -> {
          if (reply.failed()) {
            // Still QUEUED in the store: the next dispatch after RETRY_AFTER asks again.
            LOG.warn("run {}: agent {} did not take it: {}", run.runId(), agentId, reply.cause().getMessage());
            if (isBusyWith(run.deviceId(), run.runId())) {
              release(run.deviceId(), true);
            }
            return;
          }
          Ack ack = reply.result().body();
          if (ack.ok()) {
            accepted(run);
          } else {
            refused(run, agentId, ack.reason());
          }
        });
  }

  private void accepted(QueuedRun run) {
    if (isBusyWith(run.deviceId(), run.runId())) {
      busy.put(run.deviceId(), new Busy(run.runId(), true, clock.instant()));
    }
    blocking(() -> {
      sweeps.markAccepted(run.runId(), clock.instant());
      return null;
    }).onFailure(e -> LOG.error("run {}: cannot record that it was accepted", run.runId(), e));
  }

  private void refused(QueuedRun run, String agentId, String reason) {
    String message = "refused by agent " + agentId + ": " + reason;
    LOG.warn("run {}: {}", run.runId(), message);
    end(run.deviceId(), run.runId(), run.sweepId(), agentId, RunState.FAILED, message);
  }

  /** An agent reported on a run; once the run is finished its device takes the next one. */
  public void onStatus(Run run) {
    if (!isBusyWith(run.deviceId(), run.runId())) {
      return;
    }
    if (run.finished()) {
      busy.remove(run.deviceId());
      mayHaveWork.add(run.deviceId());
      dispatch();
    } else {
      busy.put(run.deviceId(), new Busy(run.runId(), true, clock.instant()));
    }
  }

  /** A heartbeat that says a device is idle while the coordinator thinks it runs something may reveal a lost run. */
  public void onHeartbeat(Heartbeat heartbeat) {
    Instant now = clock.instant();
    for (Heartbeat.DeviceState state : heartbeat.devices()) {
      Busy b = busy.get(state.deviceId());
      if (state.runId() == null && b != null && b.accepted() && b.lastNews().plus(LOST_AFTER).isBefore(now)) {
        String message = "lost: agent " + heartbeat.agentId() + " reports the device idle and has not reported on the"
            + " run for " + LOST_AFTER.toSeconds() + " s";
        LOG.warn("run {}: {}", b.runId(), message);
        end(state.deviceId(), b.runId(), null, heartbeat.agentId(), RunState.INTERRUPTED, message);
      } else if (state.runId() != null && b != null && state.runId().equals(b.runId())) {
        busy.put(state.deviceId(), new Busy(b.runId(), true, now));
      } else if (state.runId() != null && b == null) {
        // The agent still measures a run this coordinator let go of (interrupted while the agent was cut off,
        // or dispatched by a coordinator that died): the device is not free until that run reports.
        busy.put(state.deviceId(), new Busy(state.runId(), true, now));
      }
    }
  }

  /**
   * Ends a run the coordinator gave up on and tells the dashboards. The device stays busy until the store has the
   * run as ended, and is free after: freed before, a dispatch woken meanwhile (a new sweep) read the run as still
   * QUEUED and asked the agent for it again (RunQueuesTest saw it under load). A heartbeat naming the run while it
   * ends (an agent that was only cut off still measures it) keeps the device busy until the run reports.
   */
  private void end(String deviceId, String runId, String sweepId, String agentId, RunState state,
      String message) {
    Busy ending = new Busy(runId, false, clock.instant());
    busy.put(deviceId, ending);
    blocking(() -> {
      sweeps.endRun(runId, state, message, clock.instant());
      return null;
    }).onComplete(done -> {
      if (busy.get(deviceId) == ending) {
        busy.remove(deviceId);
      }
      if (done.failed()) {
        LOG.error("run {}: cannot record it as {}", runId, state, done.cause());
      } else {
        vertx.eventBus().publish(Addresses.LIVE_RUNS, new RunStatus(Protocol.SCHEMA_VERSION, runId, sweepId,
            agentId, deviceId, state.wire(), 0, 0, message, clock.instant()));
      }
      mayHaveWork.add(deviceId);
      dispatch();
    });
  }

  private void release(String deviceId, boolean backOff) {
    busy.remove(deviceId);
    if (backOff) {
      retryAfter.put(deviceId, clock.instant().plus(RETRY_AFTER));
    }
  }

  private boolean isBusyWith(String deviceId, String runId) {
    Busy b = busy.get(deviceId);
    return b != null && runId.equals(b.runId());
  }

  private <T> Future<T> blocking(Callable<T> work) {
    return vertx.executeBlocking(work, false);
  }
}
