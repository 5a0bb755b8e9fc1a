package io.busload.agent.cluster;

import io.busload.protocol.Ack;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers one run's messages to the coordinator in order, each retried with exponential backoff until the
 * coordinator acks it: a coordinator that is down or restarting delays results, never loses them
 * (ARCHITECTURE.md: a plain send to a gone member is silently dropped). Used on the verticle's context only.
 */
final class Delivery {
  private static final Logger LOG = LoggerFactory.getLogger(Delivery.class);
  static final long FIRST_BACKOFF_MS = 250;
  static final long MAX_BACKOFF_MS = 30_000;
  static final long REQUEST_TIMEOUT_MS = 10_000;

  private final Vertx vertx;
  private Future<Void> tail = Future.succeededFuture();

  Delivery(Vertx vertx) {
    this.vertx = vertx;
  }

  /**
   * Queues {@code message} behind everything queued before it. {@code untilOk}: a refusal is retried too
   * (results: the coordinator acks only after commit); otherwise a refusal is logged and the queue moves on.
   */
  Future<Void> enqueue(String address, Object message, String id, boolean untilOk) {
    tail = tail.transform(ignored -> {
      Promise<Void> delivered = Promise.promise();
      attempt(address, message, id, untilOk, 0, delivered);
      return delivered.future();
    });
    return tail;
  }

  private void attempt(String address, Object message, String id, boolean untilOk, int attempt, Promise<Void> done) {
    vertx.eventBus().<Ack>request(address, message, new DeliveryOptions().setSendTimeout(REQUEST_TIMEOUT_MS))
        .onSuccess(reply -> {
          Ack ack = reply.body();
          if (ack.ok()) {
            done.complete();
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
    long delay = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS << Math.min(attempt, 20));
    vertx.setTimer(delay, t -> attempt(address, message, id, untilOk, attempt + 1, done));
  }
}
