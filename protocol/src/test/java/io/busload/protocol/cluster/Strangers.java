package io.busload.protocol.cluster;

import io.busload.protocol.Codecs;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.eventbus.EventBusOptions;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;

/**
 * Members started as an attacker would: Busload's Hazelcast settings (so it joins), but event-bus options of its
 * own choosing, such as trusting every certificate and asking for none. Tests only.
 */
public final class Strangers {
  private Strangers() {}

  public static Future<Vertx> start(ClusterSettings settings, EventBusOptions eventBus) {
    eventBus.setHost(settings.host()).setPort(settings.eventBusPort());
    return Vertx.builder()
        .with(new VertxOptions().setEventBusOptions(eventBus))
        .withClusterManager(new HazelcastClusterManager(Cluster.hazelcastConfig(settings)))
        .buildClustered()
        .map(Codecs::register);
  }
}
