package io.busload.coordinator.fleet;

import io.busload.coordinator.store.AgentStore;
import io.busload.coordinator.store.SweepStore;
import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.AgentHello;
import io.busload.protocol.Heartbeat;
import io.busload.protocol.KernelResult;
import io.busload.protocol.Protocol;
import io.busload.protocol.RunStatus;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What agents send the coordinator (docs/contract.md, event bus): hellos, heartbeats, run statuses and
 * results. An ack is the agent's licence to forget, so every ack here is sent after the commit it stands for.
 */
public record Intake(Vertx vertx, AgentStore agents, SweepStore sweeps, Fleet fleet, RunQueues queues, Clock clock,
    ResultBatcher results, Refusals refusals) {
  private static final Logger LOG = LoggerFactory.getLogger(Intake.class);
  /** Reply failure code for a store error: not a refusal, the agent keeps the message and retries. */
  public static final int STORE_FAILED = 500;

  /** Registers every consumer; completes once they are known to the whole cluster. */
  public Future<List<MessageConsumer<?>>> register() {
    EventBus bus = vertx.eventBus();
    ReceivedResult.install(bus);
    List<MessageConsumer<?>> consumers = List.of(
        bus.consumer(Addresses.AGENT_HELLO, guarded(Addresses.AGENT_HELLO, AgentHello.class, AgentHello::agentId,
            AgentHello::agentId, MessageCheck::hello, this::onHello)),
        bus.consumer(Addresses.AGENT_HEARTBEAT, guarded(Addresses.AGENT_HEARTBEAT, Heartbeat.class,
            Heartbeat::agentId, Heartbeat::agentId, MessageCheck::heartbeat, this::onHeartbeat)),
        bus.consumer(Addresses.RUN_STATUS, guarded(Addresses.RUN_STATUS, RunStatus.class, RunStatus::runId,
            RunStatus::agentId, MessageCheck::status, this::onStatus)),
        bus.consumer(Addresses.RESULTS, guarded(Addresses.RESULTS, KernelResult.class,
            r -> r.id() == null ? null : r.id().toString(), KernelResult::agentId, MessageCheck::fromAgent,
            this::onResult)));
    return Future.all(consumers.stream().map(MessageConsumer::completion).toList()).map(done -> consumers);
  }

  /**
   * Anyone in the cluster can send anything to these addresses. Before a handler sees a message, its
   * body must decode (a codec that throws on the wire is caught here), be the address's record, carry a known
   * schema version and pass {@link MessageCheck}; whatever fails is refused (with a reason, when the sender
   * waits for a reply) and counted, and nothing a handler throws escapes to the event loop. A name holding a control
   * character is counted as well under its sender's agent id ({@link Refusals#trespass}), as a try at the log.
   */
  private <T extends Protocol.Message> Handler<Message<Object>> guarded(String address, Class<T> type,
      Function<T, String> id, Function<T, String> agentOf, Function<T, String> check, Checked<T> handler) {
    return message -> {
      Object body;
      try {
        body = message.body();
      } catch (RuntimeException e) {
        refuse(message, address, Refusals.Reason.MALFORMED, null, "malformed " + type.getSimpleName() + ": "
            + firstLine(e.getMessage()));
        return;
      }
      byte[] json = null;
      if (body instanceof ReceivedResult received) {
        body = received.result();
        json = received.json();
      }
      if (!type.isInstance(body)) {
        refuse(message, address, Refusals.Reason.WRONG_TYPE, null, "expected a " + type.getSimpleName()
            + ", got " + (body == null ? "no body" : body.getClass().getSimpleName()));
        return;
      }
      T typed = type.cast(body);
      String messageId = id.apply(typed);
      String unknownVersion = typed instanceof AgentHello hello ? MessageCheck.helloVersion(hello)
          : MessageCheck.version(typed.schemaVersion());
      if (unknownVersion != null) {
        refuse(message, address, Refusals.Reason.SCHEMA, messageId, unknownVersion);
        return;
      }
      String problem;
      try {
        problem = check.apply(typed);
      } catch (RuntimeException e) {
        problem = "unreadable: " + firstLine(e.getMessage());
      }
      if (problem != null) {
        if (problem.endsWith(MessageCheck.CONTROL)) {
          refusals.trespass(agentOf.apply(typed), Refusals.Trespass.CONTROL_CHARACTER, address + ": " + problem);
        }
        refuse(message, address, Refusals.Reason.INVALID, messageId, problem);
        return;
      }
      try {
        handler.accept(message, typed, json);
      } catch (RuntimeException e) {
        LOG.error("{} {} could not be handled", address, messageId, e);
        refuse(message, address, Refusals.Reason.FAILED, messageId, "coordinator could not handle it");
      }
    };
  }

  /**
   * The checks a result passes before it is stored, whichever way it came (a pushed file's results get
   * the event bus's checks, not a copy of them): a known schema version, then {@link MessageCheck#result}. Null, or
   * the reason, which starts with the field it names ({@code "device.name: required"}).
   */
  public static String checkResult(KernelResult result) {
    String unknownVersion = MessageCheck.version(result.schemaVersion());
    if (unknownVersion != null) {
      return "schemaVersion: " + unknownVersion;
    }
    try {
      return MessageCheck.result(result);
    } catch (RuntimeException e) {
      return "unreadable: " + firstLine(e.getMessage());
    }
  }

  /**
   * One result's JSON read as results from the event bus are ({@link ReceivedResult.Codec}: the protocol's mapping,
   * Jackson's fast double parser); {@link IllegalArgumentException} naming what is malformed.
   */
  public static KernelResult decodeResult(byte[] json) {
    return ReceivedResult.Codec.decode(json).result();
  }

  private void refuse(Message<?> message, String address, Refusals.Reason reason, String id, String detail) {
    refusals.count(address, reason, detail);
    if (message.replyAddress() != null) {
      message.reply(Ack.refused(id, detail));
    }
  }

  private static String firstLine(String text) {
    if (text == null) {
      return "no detail";
    }
    String line = text.lines().findFirst().orElse("");
    return line.length() > 200 ? line.substring(0, 200) + "..." : line;
  }

  /**
   * Stores the agent and the devices of its hello that are its own. A device another agent owns stays with its
   * owner: left out of this agent's list, counted and logged, and named in the ack, which is still ok so that the
   * agent works with the devices it has.
   */
  private void onHello(Message<?> message, AgentHello received, byte[] json) {
    stored(message, "store agent " + received.agentId(), () -> agents.saveAgent(received, clock.instant()),
        others -> {
          AgentHello hello = received;
          String note = null;
          if (!others.isEmpty()) {
            hello = new AgentHello(received.schemaVersion(), received.agentId(), received.host(),
                received.agentVersion(), received.fatbinHash(),
                received.devices().stream().filter(d -> !others.contains(d.id())).toList(), received.startedAt(),
                received.labels());
            note = "device(s) " + others + " belong to another agent and were left out";
            refusals.trespass(received.agentId(), Refusals.Trespass.DEVICE_OWNED, "hello listed " + note);
          }
          boolean wasOnline = fleet.online(hello.agentId(), clock.instant());
          fleet.hello(hello, clock.instant());
          message.reply(new Ack(Protocol.SCHEMA_VERSION, hello.agentId(), true, note));
          if (!wasOnline) {
            LOG.info("agent {} on {} online with {} device(s): {}", hello.agentId(), hello.host(),
                hello.devices().size(), fleet.devicesOf(hello.agentId()));
          }
          queues.wake(fleet.devicesOf(hello.agentId()));
        });
  }

  private void onHeartbeat(Message<?> message, Heartbeat heartbeat, byte[] json) {
    boolean wasOnline = fleet.online(heartbeat.agentId(), clock.instant());
    if (!fleet.heartbeat(heartbeat, clock.instant())) {
      LOG.debug("heartbeat of unknown agent {} ignored until it says hello", heartbeat.agentId());
      return;
    }
    queues.onHeartbeat(own(heartbeat));
    if (!wasOnline) {
      LOG.info("agent {} back online", heartbeat.agentId());
      queues.wake(fleet.devicesOf(heartbeat.agentId()));
    }
  }

  /**
   * The heartbeat's states of the agent's own devices only: a state naming another agent's device would let its
   * sender say that device is idle, and so have the run on it taken as lost.
   */
  private Heartbeat own(Heartbeat heartbeat) {
    List<Heartbeat.DeviceState> own = heartbeat.devices().stream()
        .filter(s -> heartbeat.agentId().equals(fleet.agentOf(s.deviceId()).orElse(null))).toList();
    if (own.size() == heartbeat.devices().size()) {
      return heartbeat;
    }
    heartbeat.devices().stream().filter(s -> fleet.agentOf(s.deviceId()).filter(a -> !a.equals(heartbeat.agentId()))
        .isPresent()).findFirst().ifPresent(s -> refusals.trespass(heartbeat.agentId(),
            Refusals.Trespass.HEARTBEAT_DEVICE, "heartbeat named device " + s.deviceId()
                + ", which belongs to another agent"));
    return new Heartbeat(heartbeat.schemaVersion(), heartbeat.agentId(), heartbeat.sentAt(), own);
  }

  private void onStatus(Message<?> message, RunStatus status, byte[] json) {
    stored(message, "record status of run " + status.runId(), () -> sweeps.recordStatus(status, clock.instant()),
        recorded -> {
          if (recorded.isEmpty()) {
            message.reply(Ack.refused(status.runId(), "unknown run " + status.runId()));
            return;
          }
          if (!SweepStore.assignedTo(recorded.get(), status.agentId(), status.deviceId())) {
            String why = "run " + status.runId() + " is not assigned to agent " + status.agentId() + " on device "
                + status.deviceId();
            refusals.trespass(status.agentId(), Refusals.Trespass.RUN_NOT_ASSIGNED, "status " + status.state() + ": "
                + why);
            message.reply(Ack.refused(status.runId(), why));
            return;
          }
          message.reply(Ack.ok(status.runId()));
          vertx.eventBus().publish(Addresses.LIVE_RUNS, status);
          fleet.status(status);
          queues.onStatus(recorded.get());
        });
  }

  /**
   * Checked by {@link #guarded}: id, device, kernel and measuredAt present, every field storable; here, the sending
   * agent's clock right by its last heartbeat ({@link ResultBatcher#clockProblem}) and measuredAt inside the window
   * around the coordinator's clock ({@link ResultBatcher#outsideWindow}). {@code json} is
   * what the agent sent when it can be stored as it is ({@link ReceivedResult}), else null.
   */
  private void onResult(Message<?> message, KernelResult result, byte[] json) {
    String outside = fleet.clockOffset(result.agentId())
        .map(offset -> results.clockProblem(result.agentId(), offset)).orElse(null);
    if (outside == null) {
      outside = results.outsideWindow(result);
    }
    if (outside != null) {
      // A refusal the agent keeps its result for (in its outbox, tried again): nothing is lost while its clock is off.
      refuse(message, Addresses.RESULTS, Refusals.Reason.INVALID, result.id().toString(), outside);
      return;
    }
    results.add(message, result, json);
  }

  /** A message that passed {@link #guarded}, its record, and the JSON it came as (results only, else null). */
  @FunctionalInterface
  private interface Checked<T> {
    void accept(Message<?> message, T body, byte[] json);
  }

  /**
   * Runs {@code work} (a store call) off the event loop, then {@code then} with its value on it. A failed call is
   * logged and failed back with {@link #STORE_FAILED}: not a refusal, so the agent keeps the message and retries.
   */
  private <T> void stored(Message<?> message, String what, Callable<T> work, Consumer<T> then) {
    vertx.executeBlocking(work, false).onComplete(done -> {
      if (done.failed()) {
        LOG.error("cannot {}", what, done.cause());
        message.fail(STORE_FAILED, "coordinator store failed: " + done.cause().getMessage());
        return;
      }
      then.accept(done.result());
    });
  }
}
