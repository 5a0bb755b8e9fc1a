package io.busload.protocol.cluster;

import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.LifecycleEvent;
import com.hazelcast.core.LifecycleListener;
import io.vertx.core.Vertx;
import io.vertx.core.spi.cluster.RegistrationInfo;
import java.util.Map;
import java.util.WeakHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Repairs what a network split leaves stale in a member's event bus once the halves merge again (SplitBrainIT
 * shows it: without it, the agent of the half that merged never gets a hello answered again).
 *
 * <p>During the split each half had its own leading coordinator, and Vert.x routed the coordinator's addresses to it.
 * Hazelcast's merge keeps the larger half's registrations and drops the other's, so no "registration removed" event
 * ever reaches a member of the merged half, and Vert.x 5's route cache (which ignores "registrations lost") keeps
 * routing those addresses to the coordinator that has stepped down and no longer consumes them: every hello would
 * time out. The repair reads every address this member routes from the cluster again and hands the answer to the
 * route cache, as a registration event would have ({@link FleetClusterManager#rereadRoutes}, Vert.x's cluster-manager
 * SPI). It runs when this member merges into another cluster, when a member reappears in its view, and when
 * {@link #refreshRoutes} is called (the agent calls it when hellos go unanswered although a coordinator is in the
 * cluster).
 */
public final class SplitRepair implements MembershipListener, LifecycleListener {
  private static final Logger LOG = LoggerFactory.getLogger(SplitRepair.class);
  private static final Map<Vertx, SplitRepair> INSTALLED = new WeakHashMap<>();
  /** Hazelcast's merge and the stepping down of the other half's coordinator take a moment: repair then, and again. */
  private static final long[] AFTER_MERGE_MILLIS = {2_000, 10_000, 30_000};
  static final long REFRESH_EVERY_MILLIS = 15_000;

  private final Vertx vertx;
  private final FleetClusterManager manager;
  private long lastRefresh;

  private SplitRepair(Vertx vertx, FleetClusterManager manager) {
    this.vertx = vertx;
    this.manager = manager;
  }

  /**
   * Watches a clustered Vert.x that {@link Cluster#start} made, once; returns the repair, or null for any other
   * Vert.x. Only an agent that is a cluster member installs it (its {@code ClusterLink}): coordinators and dashboards
   * do not send to a leader's addresses through their own routes, and SplitBrainBridgeIT holds without a repair on
   * any member (docs/design/fleet-transport.md).
   */
  public static SplitRepair install(Vertx vertx) {
    synchronized (INSTALLED) {
      return INSTALLED.computeIfAbsent(vertx, SplitRepair::watch);
    }
  }

  private static SplitRepair watch(Vertx vertx) {
    FleetClusterManager manager = Cluster.fleet(vertx);
    if (manager == null) {
      return null;
    }
    SplitRepair repair = new SplitRepair(vertx, manager);
    manager.getHazelcastInstance().getCluster().addMembershipListener(repair);
    manager.getHazelcastInstance().getLifecycleService().addLifecycleListener(repair);
    return repair;
  }

  @Override
  public void stateChanged(LifecycleEvent event) {
    if (event.getState() == LifecycleEvent.LifecycleState.MERGED) {
      LOG.warn("this member merged into another cluster after a split: reading its event-bus routes again");
      for (long delay : AFTER_MERGE_MILLIS) {
        vertx.setTimer(delay, t -> reread("after the merge"));
      }
    }
  }

  @Override
  public void memberAdded(MembershipEvent event) {
    vertx.setTimer(AFTER_MERGE_MILLIS[0], t -> reread("member " + event.getMember().getAddress() + " joined"));
  }

  @Override
  public void memberRemoved(MembershipEvent event) {
    // Vert.x handles removals: the registrations of a member that left are removed, and events say so.
  }

  /**
   * Reads every routed address again, at most once per {@link #REFRESH_EVERY_MILLIS}; {@code why} and where
   * {@code address} was routed are logged.
   */
  public void refreshRoutes(String why, String address) {
    long now = System.nanoTime();
    synchronized (this) {
      if (lastRefresh != 0 && now - lastRefresh < REFRESH_EVERY_MILLIS * 1_000_000L) {
        return;
      }
      lastRefresh = now;
    }
    manager.registrations(address).onComplete(found -> {
      LOG.warn("{} although coordinator(s) {} are in the cluster ({} is registered on node(s) {}): reading this"
          + " member's event-bus routes again", why, Cluster.coordinators(vertx), address, found.succeeded()
          ? found.result().stream().map(RegistrationInfo::nodeId).distinct().toList() : found.cause());
      reread(why);
    });
  }

  private void reread(String why) {
    manager.rereadRoutes()
        .onSuccess(addresses -> LOG.debug("event-bus routes read again ({}): {}", why, addresses))
        .onFailure(e -> LOG.warn("{} ({}): {}", e.getMessage(), why, String.valueOf(e.getCause())));
  }
}
