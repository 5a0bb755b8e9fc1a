package io.busload.protocol.cluster;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import io.busload.protocol.Codecs;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.eventbus.EventBusOptions;
import io.vertx.spi.cluster.hazelcast.ConfigUtil;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;

/** Starts a clustered Vert.x with the fleet's Hazelcast settings and every codec registered. */
public final class Cluster {
  private Cluster() {}

  public static Future<Vertx> start(ClusterSettings settings) {
    HazelcastClusterManager manager = new HazelcastClusterManager(hazelcastConfig(settings));
    EventBusOptions eventBus = new EventBusOptions()
        .setHost(settings.host())
        .setPort(settings.eventBusPort())
        .setClusterPublicHost(settings.publicHost());
    VertxOptions options = new VertxOptions().setEventBusOptions(eventBus);
    return Vertx.builder().with(options).withClusterManager(manager).buildClustered().map(Codecs::register);
  }

  /**
   * Joins, retrying every {@code retryDelay} until it succeeds or {@code deadline} passes. A lite member
   * (agent, dashboard) cannot start clustered Vert.x while no coordinator holds the cluster's data: Hazelcast
   * answers "all nodes in the cluster are lite members". Hosts reboot in any order, so they wait for one.
   * Blocks the calling thread: call it from a main thread, never from an event loop.
   */
  public static Vertx join(ClusterSettings settings, java.time.Duration retryDelay, java.time.Duration deadline)
      throws InterruptedException {
    long giveUp = System.nanoTime() + deadline.toNanos();
    for (int attempt = 1; ; attempt++) {
      try {
        return start(settings).await(120, java.util.concurrent.TimeUnit.SECONDS);
      } catch (RuntimeException | java.util.concurrent.TimeoutException e) {
        if (System.nanoTime() + retryDelay.toNanos() > giveUp) {
          throw new IllegalStateException("could not join cluster '" + settings.clusterName() + "' after "
              + attempt + " attempt(s): " + e.getMessage(), e);
        }
        org.slf4j.LoggerFactory.getLogger(Cluster.class).warn(
            "joining cluster '{}' failed (attempt {}: {}); no coordinator yet? retrying in {} s",
            settings.clusterName(), attempt, e.getMessage(), retryDelay.toSeconds());
        Thread.sleep(retryDelay.toMillis());
      }
    }
  }

  /** Starting from Vert.x's own config keeps its map settings; then multicast off, explicit members. */
  static Config hazelcastConfig(ClusterSettings settings) {
    Config config = ConfigUtil.loadConfig();
    config.setClusterName(settings.clusterName());
    config.setLiteMember(settings.liteMember());
    config.getMemberAttributeConfig().setAttribute(ClusterSettings.ROLE_ATTRIBUTE, settings.role());
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.setProperty("hazelcast.logging.type", "slf4j");
    config.setProperty("hazelcast.socket.bind.any", "false");
    // Split detected in about 10 s and healed in about 3 s instead of about 60 s (ARCHITECTURE.md).
    config.setProperty("hazelcast.heartbeat.interval.seconds", "1");
    config.setProperty("hazelcast.max.no.heartbeat.seconds", "10");
    config.setProperty("hazelcast.merge.first.run.delay.seconds", "10");
    config.setProperty("hazelcast.merge.next.run.delay.seconds", "5");
    config.setProperty("hazelcast.wait.seconds.before.join", "0");
    NetworkConfig network = config.getNetworkConfig();
    network.setPort(settings.clusterPort()).setPortAutoIncrement(true).setPortCount(20);
    network.setPublicAddress(settings.publicHost());
    network.getInterfaces().setEnabled(true).clear().addInterface(settings.host());
    JoinConfig join = network.getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    join.getTcpIpConfig().setEnabled(true).setMembers(settings.members());
    return config;
  }
}
