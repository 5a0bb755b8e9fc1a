package io.busload.agent.cluster;

import io.busload.protocol.Ack;
import io.busload.protocol.RunRequest;
import io.vertx.core.Future;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * How an agent reaches the coordinators: as a member of the clustered event bus ({@link ClusterLink}),
 * or through a coordinator's event-bus bridge ({@link BridgeLink}). Everything above it, the outbox, the delivery
 * lanes and the runs, is the same on both. Used on the agent verticle's context only.
 */
public interface FleetLink {
  /** Whether a message sent now can reach a coordinator; {@link Delivery} holds its lanes while it cannot. */
  boolean coordinatorPresent();

  /** Why no coordinator is reachable, for the log line of a lane held by it. */
  String whyAbsent();

  /** A request to an intake address ({@code io.busload.protocol.Addresses}), answered with an {@link Ack}. */
  Future<Ack> request(String address, Object message, long timeoutMs);

  /** A one-way send (heartbeats); lost while no coordinator is reachable, as a heartbeat may be. */
  void send(String address, Object message);

  /** Serves this agent's runs: {@code handler} gets each request and a way to answer it. */
  Future<Void> serveRuns(String agentId, BiConsumer<RunRequest, Consumer<Ack>> handler);

  /** Hellos went unanswered {@code count} times in a row: a chance to repair routes (cluster only). */
  default void hellosUnanswered(int count, String address) {}

  default Future<Void> close() {
    return Future.succeededFuture();
  }
}
