package io.busload.agent.cluster;

import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.RunRequest;
import io.busload.protocol.cluster.Cluster;
import io.busload.protocol.cluster.CoordinatorReturn;
import io.busload.protocol.cluster.SplitRepair;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The agent as a lite member of the fleet's cluster: every message on the clustered event bus, and the repairs
 * that membership needs (routes re-read after a split, registrations kept after the last coordinator left).
 */
public final class ClusterLink implements FleetLink {
  private final Vertx vertx;
  private final SplitRepair routes;
  private io.vertx.core.eventbus.MessageConsumer<RunRequest> runs;

  /** The agent's link: installs the repairs that membership needs, once per Vert.x instance. */
  public ClusterLink(Vertx vertx) {
    this(vertx, true);
  }

  /**
   * @param repairs false for the fleet simulator's virtual agents, which share one member and one Vert.x, and whose
   *     cluster is never split
   */
  public ClusterLink(Vertx vertx, boolean repairs) {
    this.vertx = vertx;
    if (repairs) {
      CoordinatorReturn.install(vertx);
    }
    this.routes = repairs ? SplitRepair.install(vertx) : null;
  }

  @Override
  public boolean coordinatorPresent() {
    return Cluster.coordinatorPresent(vertx);
  }

  @Override
  public String whyAbsent() {
    return "no member of this cluster has the coordinator role (wrong BUSLOAD_CLUSTER_NAME or members?)";
  }

  @Override
  public Future<Ack> request(String address, Object message, long timeoutMs) {
    return vertx.eventBus().<Ack>request(address, message, new DeliveryOptions().setSendTimeout(timeoutMs))
        .map(Message::body);
  }

  @Override
  public void send(String address, Object message) {
    vertx.eventBus().send(address, message);
  }

  @Override
  public Future<Void> serveRuns(String agentId, BiConsumer<RunRequest, Consumer<Ack>> handler) {
    runs = vertx.eventBus().<RunRequest>consumer(Addresses.agentRuns(agentId),
        message -> handler.accept(message.body(), message::reply));
    return runs.completion();
  }

  /** Stops serving runs; the membership itself belongs to whoever started the clustered Vert.x. */
  @Override
  public Future<Void> close() {
    return runs == null ? Future.succeededFuture() : runs.unregister();
  }

  @Override
  public void hellosUnanswered(int count, String address) {
    if (count >= 2 && routes != null && Cluster.coordinatorPresent(vertx)) {
      routes.refreshRoutes(count + " hellos in a row unanswered", address);
    }
  }
}
