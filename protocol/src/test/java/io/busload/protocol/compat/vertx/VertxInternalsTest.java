package io.busload.protocol.compat.vertx;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.protocol.cluster.Cluster;
import io.busload.protocol.cluster.ClusterSettings;
import io.busload.protocol.cluster.FleetClusterManager;
import io.vertx.core.Vertx;
import io.vertx.core.spi.cluster.ClusterManager;
import java.lang.reflect.Method;
import java.net.ServerSocket;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What {@link VertxInternals} relies on in Vert.x's internal package: a Vert.x upgrade that moves it fails here, with
 * a message that says what to look for, before any fleet member misses its cluster manager.
 */
class VertxInternalsTest {

  @Test
  void vertxInternal_clusterManagerAccessor_isThereWithTheSpiType() {
    Method accessor = accessor();
    assertThat(accessor.getReturnType())
        .as("Vert.x changed: VertxInternal.clusterManager() returns %s, not the SPI's ClusterManager; the fleet's "
            + "repairs and Cluster.coordinators read the cluster manager through it", accessor.getReturnType())
        .isEqualTo(ClusterManager.class);
    Vertx plain = Vertx.vertx();
    try {
      assertThat(plain)
          .as("Vert.x changed: Vertx.vertx() is no io.vertx.core.internal.VertxInternal; VertxInternals must reach "
              + "the cluster manager another way")
          .isInstanceOf(io.vertx.core.internal.VertxInternal.class);
      assertThat(VertxInternals.clusterManager(plain)).as("a Vert.x that is not clustered has no manager").isEmpty();
    } finally {
      plain.close().await();
    }
  }

  @Test
  void clusterManager_ofAClusteredVertx_isTheOneItWasBuiltWith() throws Exception {
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    Vertx member = Cluster.start(new ClusterSettings("busload-test-" + UUID.randomUUID(), "127.0.0.1", null, port,
        0, List.of("127.0.0.1"), ClusterSettings.COORDINATOR)).await(60, TimeUnit.SECONDS);
    try {
      assertThat(VertxInternals.clusterManager(member)).get().isInstanceOf(FleetClusterManager.class);
    } finally {
      member.close().await(30, TimeUnit.SECONDS);
    }
  }

  private static Method accessor() {
    try {
      return io.vertx.core.internal.VertxInternal.class.getMethod("clusterManager");
    } catch (NoSuchMethodException e) {
      throw new AssertionError("Vert.x changed: io.vertx.core.internal.VertxInternal has no clusterManager(); "
          + "VertxInternals must reach the cluster manager another way", e);
    }
  }
}
