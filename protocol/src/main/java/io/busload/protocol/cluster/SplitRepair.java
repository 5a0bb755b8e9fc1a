package io.busload.protocol.cluster;

import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.LifecycleEvent;
import com.hazelcast.core.LifecycleListener;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.eventbus.impl.clustered.NodeSelector;
import io.vertx.core.spi.cluster.RegistrationInfo;
import io.vertx.core.spi.cluster.RegistrationUpdateEvent;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.lang.reflect.Field;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Repairs what a network split leaves stale in a member's event bus once the halves merge again (found by
 * SplitBrainIT, where the agent of the half that merged never got a hello answered again).
 *
 * <p>During the split each half had its own leading coordinator, and Vert.x routed the coordinator's addresses to it.
 * Hazelcast's merge keeps the larger half's registrations and drops the other's, so no "registration removed" event
 * ever reaches a member of the merged half, and Vert.x 5's node selector (which ignores "registrations lost") keeps
 * routing those addresses to the coordinator that has stepped down and no longer consumes them: every hello timed
 * out, for as long as the test waited. The repair reads every address this member routes from the cluster again
 * and hands the answer to the node selector, as a registration event would have. It runs when this member merges
 * into another cluster, when a member reappears in its view, and when {@link #refreshRoutes} is called (the agent
 * calls it when hellos go unanswered although a coordinator is in the cluster). Vert.x offers no API for this: its
 * node selector and its cache of routed addresses are reached by reflection; a Vert.x that renamed them is logged,
 * and SplitBrainIT fails.
 */
public final class SplitRepair implements MembershipListener, LifecycleListener {
  private static final Logger LOG = LoggerFactory.getLogger(SplitRepair.class);
  private static final Map<Vertx, SplitRepair> INSTALLED = new WeakHashMap<>();
  /** Hazelcast's merge and the stepping down of the other half's coordinator take a moment: repair then, and again. */
  private static final long[] AFTER_MERGE_MILLIS = {2_000, 10_000, 30_000};
  static final long REFRESH_EVERY_MILLIS = 15_000;

  private final Vertx vertx;
  private final HazelcastClusterManager manager;
  private final NodeSelector selector;
  private final Map<String, ?> routed;
  private long lastRefresh;

  private SplitRepair(Vertx vertx, HazelcastClusterManager manager, NodeSelector selector, Map<String, ?> routed) {
    this.vertx = vertx;
    this.manager = manager;
    this.selector = selector;
    this.routed = routed;
  }

  /**
   * Watches a clustered Vert.x on Hazelcast, once; returns the repair, or null for any other Vert.x or one whose
   * internals changed (logged). Only an agent that is a cluster member installs it (its {@code ClusterLink}):
   * coordinators and dashboards do not send to a leader's addresses through their own routes, and SplitBrainBridgeIT
   * holds without a repair on any member (docs/design/fleet-transport.md).
   */
  public static SplitRepair install(Vertx vertx) {
    synchronized (INSTALLED) {
      return INSTALLED.computeIfAbsent(vertx, SplitRepair::watch);
    }
  }

  private static SplitRepair watch(Vertx vertx) {
    if (!(vertx instanceof VertxInternal internal)
        || !(internal.clusterManager() instanceof HazelcastClusterManager manager)
        || manager.getHazelcastInstance() == null) {
      return null;
    }
    SplitRepair repair;
    try {
      Object bus = internal.eventBus();
      Field selectorField = bus.getClass().getDeclaredField("nodeSelector");
      selectorField.setAccessible(true);
      NodeSelector selector = (NodeSelector) selectorField.get(bus);
      Field entries = selector.getClass().getDeclaredField("entries");
      entries.setAccessible(true);
      repair = new SplitRepair(vertx, manager, selector, (Map<String, ?>) entries.get(selector));
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.error("cannot repair event-bus routes after a network split (Vert.x changed: {}); after a split brain"
          + " heals, restart the members that cannot reach a coordinator", e.toString());
      return null;
    }
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
    registrations(address).onComplete(found -> {
      LOG.warn("{} although coordinator(s) {} are in the cluster ({} is registered on node(s) {}): reading this"
          + " member's event-bus routes again", why, Cluster.coordinators(vertx), address, found.succeeded()
          ? found.result().stream().map(RegistrationInfo::nodeId).distinct().toList() : found.cause());
      reread(why);
    });
  }

  private void reread(String why) {
    List<String> addresses = List.copyOf(routed.keySet());
    for (String address : addresses) {
      registrations(address)
          .onSuccess(found -> selector.registrationsUpdated(new RegistrationUpdateEvent(address, found)))
          .onFailure(e -> LOG.warn("cannot read the routes of {} again ({}): {}", address, why, e.toString()));
    }
    LOG.debug("event-bus routes read again ({}): {}", why, addresses);
  }

  private io.vertx.core.Future<List<RegistrationInfo>> registrations(String address) {
    Promise<List<RegistrationInfo>> promise = Promise.promise();
    manager.getRegistrations(address, promise);
    return promise.future();
  }
}
