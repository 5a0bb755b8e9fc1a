package io.busload.coordinator.fleet;

import io.busload.coordinator.store.Store;
import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.AgentHello;
import io.busload.protocol.Heartbeat;
import io.busload.protocol.KernelResult;
import io.busload.protocol.Protocol;
import io.busload.protocol.RunStatus;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What agents send the coordinator (docs/contract.md, event bus): hellos, heartbeats, run statuses and
 * results. An ack is the agent's licence to forget, so every ack here is sent after the commit it stands for.
 */
public final class Intake {
  private static final Logger LOG = LoggerFactory.getLogger(Intake.class);
  /** Reply failure code for a store error: not a refusal, the agent keeps the message and retries. */
  public static final int STORE_FAILED = 500;

  private final Vertx vertx;
  private final Store store;
  private final Fleet fleet;
  private final RunQueues queues;
  private final Clock clock;
  private final ResultBatcher results;

  public Intake(Vertx vertx, Store store, Fleet fleet, RunQueues queues, Clock clock, ResultBatcher results) {
    this.results = results;
    this.vertx = vertx;
    this.store = store;
    this.fleet = fleet;
    this.queues = queues;
    this.clock = clock;
  }

  /** Registers every consumer; completes once they are known to the whole cluster. */
  public Future<List<MessageConsumer<?>>> register() {
    EventBus bus = vertx.eventBus();
    List<MessageConsumer<?>> consumers = List.of(
        bus.<AgentHello>consumer(Addresses.AGENT_HELLO, this::onHello),
        bus.<Heartbeat>consumer(Addresses.AGENT_HEARTBEAT, this::onHeartbeat),
        bus.<RunStatus>consumer(Addresses.RUN_STATUS, this::onStatus),
        bus.<KernelResult>consumer(Addresses.RESULTS, this::onResult));
    return Future.all(consumers.stream().map(MessageConsumer::completion).toList()).map(done -> consumers);
  }

  private void onHello(Message<AgentHello> message) {
    AgentHello hello = message.body();
    if (refuseNewer(message, hello, hello.agentId())) {
      return;
    }
    blocking(() -> {
      store.saveAgent(hello, clock.instant());
      return null;
    }).onComplete(saved -> {
      if (saved.failed()) {
        LOG.error("cannot store agent {}", hello.agentId(), saved.cause());
        message.fail(STORE_FAILED, "coordinator store failed: " + saved.cause().getMessage());
        return;
      }
      boolean wasOnline = fleet.online(hello.agentId(), clock.instant());
      fleet.hello(hello, clock.instant());
      message.reply(Ack.ok(hello.agentId()));
      if (!wasOnline) {
        LOG.info("agent {} on {} online with {} device(s): {}", hello.agentId(), hello.host(), hello.devices().size(),
            fleet.devicesOf(hello.agentId()));
      }
      queues.wake(fleet.devicesOf(hello.agentId()));
    });
  }

  private void onHeartbeat(Message<Heartbeat> message) {
    Heartbeat heartbeat = message.body();
    if (heartbeat.schemaVersion() > Protocol.SCHEMA_VERSION) {
      LOG.warn("heartbeat of agent {} ignored: schema version {} is newer than {}", heartbeat.agentId(),
          heartbeat.schemaVersion(), Protocol.SCHEMA_VERSION);
      return;
    }
    boolean wasOnline = fleet.online(heartbeat.agentId(), clock.instant());
    if (!fleet.heartbeat(heartbeat, clock.instant())) {
      LOG.debug("heartbeat of unknown agent {} ignored until it says hello", heartbeat.agentId());
      return;
    }
    queues.onHeartbeat(heartbeat);
    if (!wasOnline) {
      LOG.info("agent {} back online", heartbeat.agentId());
      queues.wake(fleet.devicesOf(heartbeat.agentId()));
    }
  }

  private void onStatus(Message<RunStatus> message) {
    RunStatus status = message.body();
    if (refuseNewer(message, status, status.runId())) {
      return;
    }
    blocking(() -> store.recordStatus(status, clock.instant())).onComplete(recorded -> {
      if (recorded.failed()) {
        LOG.error("cannot record status of run {}", status.runId(), recorded.cause());
        message.fail(STORE_FAILED, "coordinator store failed: " + recorded.cause().getMessage());
        return;
      }
      if (recorded.result().isEmpty()) {
        message.reply(Ack.refused(status.runId(), "unknown run " + status.runId()));
        return;
      }
      message.reply(Ack.ok(status.runId()));
      vertx.eventBus().publish(Addresses.LIVE_RUNS, status);
      fleet.status(status);
      queues.onStatus(recorded.result().get());
    });
  }

  private void onResult(Message<KernelResult> message) {
    KernelResult result = message.body();
    String id = result.id() == null ? null : result.id().toString();
    if (refuseNewer(message, result, id)) {
      return;
    }
    if (result.id() == null || result.device() == null || result.kernel() == null || result.measuredAt() == null) {
      message.reply(Ack.refused(id, "a result needs id, device, kernel and measuredAt"));
      return;
    }
    results.add(message);
  }

  /** Newer versions are refused (docs/contract.md); so is a version below 1, which no sender ever wrote. */
  private static boolean refuseNewer(Message<?> message, Protocol.Message body, String id) {
    int version = body.schemaVersion();
    if (version >= 1 && version <= Protocol.SCHEMA_VERSION) {
      return false;
    }
    String reason = version > Protocol.SCHEMA_VERSION
        ? "schema version " + version + " is newer than " + Protocol.SCHEMA_VERSION
        : "schema version " + version + " is unknown; known: 1 to " + Protocol.SCHEMA_VERSION;
    LOG.warn("refused {} {}: {}", body.getClass().getSimpleName(), id, reason);
    message.reply(Ack.refused(id, reason));
    return true;
  }

  private <T> Future<T> blocking(Callable<T> work) {
    return vertx.executeBlocking(work, false);
  }
}
