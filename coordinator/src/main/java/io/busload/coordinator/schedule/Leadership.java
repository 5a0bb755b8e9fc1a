package io.busload.coordinator.schedule;

import com.hazelcast.cluster.Member;
import io.vertx.core.Vertx;
import io.vertx.core.internal.VertxInternal;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.util.Iterator;

/**
 * Whether this coordinator leads: the oldest data (non-lite) member of the Hazelcast cluster does. Hazelcast
 * keeps its member list in join order on every member, so all agree without a vote, and the CP subsystem
 * (which needs three members) is not involved. A coordinator on a non-clustered Vert.x leads alone.
 */
public final class Leadership {
  private final Vertx vertx;

  public Leadership(Vertx vertx) {
    this.vertx = vertx;
  }

  public boolean leads() {
    if (!(vertx instanceof VertxInternal internal)
        || !(internal.clusterManager() instanceof HazelcastClusterManager manager)) {
      return true;
    }
    var hazelcast = manager.getHazelcastInstance();
    if (hazelcast == null || !hazelcast.getLifecycleService().isRunning()) {
      return false;
    }
    var cluster = hazelcast.getCluster();
    for (Iterator<Member> members = cluster.getMembers().iterator(); members.hasNext(); ) {
      Member member = members.next();
      if (!member.isLiteMember()) {
        return member.localMember();
      }
    }
    return false;
  }
}
