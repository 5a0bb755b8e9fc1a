package io.busload.protocol.compat.vertx;

import io.vertx.core.Vertx;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.spi.cluster.ClusterManager;
import java.util.Optional;

/** What Busload reads from Vert.x's internal interface {@code io.vertx.core.internal.VertxInternal}. */
public final class VertxInternals {
  private VertxInternals() {}

  /**
   * The cluster manager {@code vertx} was built with ({@code Vertx.builder().withClusterManager}); empty for a Vert.x
   * that is not clustered.
   */
  public static Optional<ClusterManager> clusterManager(Vertx vertx) {
    return vertx instanceof VertxInternal internal ? Optional.ofNullable(internal.clusterManager()) : Optional.empty();
  }
}
