package io.busload.protocol.cluster;

import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import io.vertx.core.Vertx;
import io.vertx.core.internal.VertxInternal;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Set;
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
 * then reaches the agent's consumers but cannot answer it ("Not a member of the cluster" for the agent's node):
 * every hello and every result timed out and the outbox never drained. So when a data member joins a cluster that
 * held none, the same repair is run again. It is Vert.x's private {@code membersRemoved} with no member removed:
 * put our node info, forget cached registrations, republish our own; after a split-brain merge Vert.x does
 * exactly this itself.
 */
public final class CoordinatorReturn implements MembershipListener {
  private static final Logger LOG = LoggerFactory.getLogger(CoordinatorReturn.class);
  private static final int ATTEMPTS = 10;
  private static final long RETRY_MILLIS = 2_000;

  private final Vertx vertx;
  private final HazelcastClusterManager manager;
  private final Method repair;

  private CoordinatorReturn(Vertx vertx, HazelcastClusterManager manager, Method repair) {
    this.vertx = vertx;
    this.manager = manager;
    this.repair = repair;
  }

  /** Watches the cluster of a clustered Vert.x on Hazelcast; does nothing for any other Vert.x. */
  public static void install(Vertx vertx) {
    if (!(vertx instanceof VertxInternal internal)
        || !(internal.clusterManager() instanceof HazelcastClusterManager manager)
        || manager.getHazelcastInstance() == null) {
      return;
    }
    Method repair;
    try {
      repair = HazelcastClusterManager.class.getDeclaredMethod("membersRemoved", Set.class);
      repair.setAccessible(true);
    } catch (ReflectiveOperationException | RuntimeException e) {
      // A Vert.x upgrade renamed it: the member still works, but only a restart rejoins a restarted coordinator.
      LOG.error("cannot watch for a returning coordinator (Vert.x changed: {}); after the only coordinator dies, "
          + "restart this member", e.toString());
      return;
    }
    manager.getHazelcastInstance().getCluster()
        .addMembershipListener(new CoordinatorReturn(vertx, manager, repair));
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
    vertx.executeBlocking(() -> {
      repair.invoke(manager, Set.of());
      return null;
    }, false).onComplete(done -> {
      if (done.succeeded()) {
        LOG.info("event-bus entries republished for the returning coordinator");
      } else if (attempt < ATTEMPTS) {
        LOG.warn("republishing for the returning coordinator failed (attempt {}: {}); retrying", attempt,
            cause(done.cause()));
        vertx.setTimer(RETRY_MILLIS, t -> attempt(attempt + 1));
      } else {
        LOG.error("republishing for the returning coordinator failed {} times: {}; restart this member", ATTEMPTS,
            cause(done.cause()));
      }
    });
  }

  private static String cause(Throwable e) {
    Throwable cause = e instanceof InvocationTargetException ite && ite.getCause() != null ? ite.getCause() : e;
    return cause.toString();
  }
}
