package io.busload.agent.cluster;

import io.busload.protocol.Ack;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers one run's messages to the coordinator in order, each retried with exponential backoff until the
 * coordinator acks it: a coordinator that is down or restarting delays results, never loses them
 * (a plain send to a gone member is silently dropped: docs/design/invariants.md#delivery). Used on the verticle's
 * context only.
 *
 * <p>Nothing is sent while no coordinator is reachable ({@link FleetLink#coordinatorPresent}). On the cluster, that
 * means no member says it is a coordinator: such a cluster is
 * the wrong one (another cluster name, a stranger's data member), and whatever answered there would not be the
 * coordinator. That claim is a Hazelcast attribute anyone can make; what proves an ack came from a coordinator is
 * TLS, where the agent trusts only the coordinator CA (docs/reliability.md).
 *
 * <p>Public for the fleet simulator, whose virtual agents deliver through this same class.
 */
public final class Delivery {
  private static final Logger LOG = LoggerFactory.getLogger(Delivery.class);
  static final long FIRST_BACKOFF_MS = 250;
  static final long MAX_BACKOFF_MS = 30_000;
  static final long HOLD_POLL_MS = 1_000;

  /** How far apart a result the coordinator refused is tried again, once it is off its run's queue. */
  static final long REFUSED_MAX_BACKOFF_MS = 600_000;

  /**
   * The coordinator refused the message (an ok=false ack: it decoded the message and will not take it, as for a
   * schema newer than its own or a field over its limits). Unlike a failure to deliver or to commit, sending it
   * again to the same coordinator gets the same answer.
   */
  public static final class Refused extends RuntimeException {
    Refused(String reason) {
      super(reason, null, false, false);
    }
  }

  private final Vertx vertx;
  private final FleetLink link;
  private final boolean refusalsEnd;
  private final long maxBackoffMs;
  private final long requestTimeoutMs;
  private Future<Void> tail = Future.succeededFuture();
  private boolean closed;
  private boolean held;

  /** A run's lane: in order, and a refused result ends with {@link Refused} so the run's queue moves on. */
  public Delivery(Vertx vertx, FleetLink link, Duration requestTimeout) {
    this(vertx, link, true, MAX_BACKOFF_MS, requestTimeout);
  }

  /** A lane for one refused result: tried again, at most {@link #REFUSED_MAX_BACKOFF_MS} apart, until acked. */
  public static Delivery forRefused(Vertx vertx, FleetLink link, Duration requestTimeout) {
    return new Delivery(vertx, link, false, REFUSED_MAX_BACKOFF_MS, requestTimeout);
  }

  private Delivery(Vertx vertx, FleetLink link, boolean refusalsEnd, long maxBackoffMs, Duration requestTimeout) {
    this.vertx = vertx;
    this.link = link;
    this.refusalsEnd = refusalsEnd;
    this.maxBackoffMs = maxBackoffMs;
    this.requestTimeoutMs = requestTimeout.toMillis();
  }

  /** Stops every retry (the verticle is stopping); what is unacked stays in the outbox for the next start. */
  public void close() {
    closed = true;
  }

  /**
   * Queues {@code message} behind everything queued before it, retried with backoff until it is answered (the
   * coordinator acks a result only after its commit, and fails the request when the commit fails). Not
   * {@code untilOk}: a refusal is logged and the queue moves on. {@code untilOk} (results): an ok ack counts only
   * when it names {@code id}; a refusal fails the returned future with {@link Refused} on a run's lane, so that one
   * result a coordinator will not take does not hold back the run's later results and statuses (the caller keeps
   * it and tries it again on a lane of its own), and is retried on a {@link #forRefused} lane.
   */
  public Future<Void> enqueue(String address, Object message, String id, boolean untilOk) {
    tail = tail.transform(ignored -> {
      Promise<Void> delivered = Promise.promise();
      attempt(address, message, id, untilOk, 0, delivered);
      return delivered.future();
    });
    return tail;
  }

  private void attempt(String address, Object message, String id, boolean untilOk, int attempt, Promise<Void> done) {
    if (closed) {
      return;
    }
    if (!link.coordinatorPresent()) {
      if (!held) {
        LOG.warn("{} {} held: {}; nothing is sent until a coordinator is reachable", address, id, link.whyAbsent());
        held = true;
      }
      // Polled, not backed off: the first result should go as soon as a coordinator joins. Reads the local
      // member list only, so it costs nothing on the event loop.
      vertx.setTimer(HOLD_POLL_MS, t -> attempt(address, message, id, untilOk, attempt, done));
      return;
    }
    if (held) {
      LOG.info("a coordinator-role member is back: sending {} {}", address, id);
      held = false;
    }
    link.request(address, message, requestTimeoutMs)
        .onSuccess(ack -> {
          if (ack.ok() && (!untilOk || id.equals(ack.id()))) {
            done.complete();
          } else if (ack.ok()) {
            LOG.warn("{} {} acked with another id ({}); retrying", address, id, ack.id());
            retry(address, message, id, untilOk, attempt, done);
          } else if (untilOk && refusalsEnd) {
            done.fail(new Refused(ack.reason()));
          } else if (untilOk) {
            LOG.warn("{} {} refused ({}); retrying", address, id, ack.reason());
            retry(address, message, id, untilOk, attempt, done);
          } else {
            LOG.warn("{} {} refused: {}", address, id, ack.reason());
            done.complete();
          }
        })
        .onFailure(e -> {
          LOG.info("{} {} not delivered ({}); retrying", address, id, e.getMessage());
          retry(address, message, id, untilOk, attempt, done);
        });
  }

  private void retry(String address, Object message, String id, boolean untilOk, int attempt, Promise<Void> done) {
    if (closed) {
      return;
    }
    long delay = Math.min(maxBackoffMs, FIRST_BACKOFF_MS << Math.min(attempt, 20));
    vertx.setTimer(delay, t -> attempt(address, message, id, untilOk, attempt + 1, done));
  }
}
