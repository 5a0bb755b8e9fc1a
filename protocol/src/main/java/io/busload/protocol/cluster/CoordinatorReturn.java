package io.busload.protocol.cluster;

import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import io.vertx.core.Vertx;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a lite member (an agent, the dashboard) reachable again when a coordinator joins a cluster that had none
 * (kill -9 of the only coordinator, then a restart). Each lite member installs it once joined.
 *
 * <p>Vert.x keeps each member's event-bus address and consumer registrations in Hazelcast maps, whose data only
 * coordinators hold (agents are lite members). When the last coordinator dies, that data is gone. Vert.x's own
 * repair, re-putting this member's address and registrations after a member leaves, runs at that moment and fails
 * ("Failed to handle memberRemoved": no data member to hold it), and nothing repeats it when a new coordinator
 * joins, because this agent is then the cluster's master and sees a plain join, not a merge. The new coordinator
 * would then reach the agent's consumers but could not answer it ("Not a member of the cluster" for the agent's
 * node): every hello and every result would time out and the outbox would never drain. So when a data member joins
 * a cluster that held none, the same repair is made again through Vert.x's cluster-manager SPI
 * ({@link FleetClusterManager#republish}: our node info, our own registrations, the route cache told that its
 * registrations may be stale).
 */
public final class CoordinatorReturn implements MembershipListener {
  private static final Logger LOG = LoggerFactory.getLogger(CoordinatorReturn.class);
  private static final int ATTEMPTS = 10;
  private static final long RETRY_MILLIS = 2_000;

  private final Vertx vertx;
  private final FleetClusterManager manager;

  private CoordinatorReturn(Vertx vertx, FleetClusterManager manager) {
    this.vertx = vertx;
    this.manager = manager;
  }

  /** Watches the cluster of a clustered Vert.x that {@link Cluster#start} made; does nothing for any other Vert.x. */
  public static void install(Vertx vertx) {
    FleetClusterManager manager = Cluster.fleet(vertx);
    if (manager != null) {
      manager.getHazelcastInstance().getCluster().addMembershipListener(new CoordinatorReturn(vertx, manager));
    }
  }

  @Override
  public void memberAdded(MembershipEvent event) {
    if (event.getMember().isLiteMember()
        || event.getMembers().stream().anyMatch(m -> !m.isLiteMember() && !m.equals(event.getMember()))) {
      return; // a second coordinator: the first still holds our entries
    }
    LOG.info("coordinator {} joined a cluster that had none: republishing this member's event-bus entries",
        event.getMember().getAddress());
    vertx.setTimer(1, t -> attempt(1));
  }

  @Override
  public void memberRemoved(MembershipEvent event) {
    // Vert.x handles removals itself.
  }

  private void attempt(int attempt) {
    manager.republish().onComplete(done -> {
      if (done.succeeded()) {
        LOG.info("event-bus entries republished for the returning coordinator");
      } else if (attempt < ATTEMPTS) {
        LOG.warn("republishing for the returning coordinator failed (attempt {}: {}); retrying", attempt,
            done.cause().toString());
        vertx.setTimer(RETRY_MILLIS, t -> attempt(attempt + 1));
      } else {
        LOG.error("republishing for the returning coordinator failed {} times: {}; restart this member", ATTEMPTS,
            done.cause().toString());
      }
    });
  }
}
