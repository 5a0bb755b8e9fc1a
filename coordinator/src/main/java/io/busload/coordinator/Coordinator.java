package io.busload.coordinator;

import io.busload.protocol.Codecs;
import io.busload.protocol.cluster.Cluster;
import io.vertx.core.Future;
import java.time.Clock;
import io.vertx.core.Vertx;

/** A running coordinator: the Vert.x it lives in and its deployment, so it can be stopped as a whole. */
public final class Coordinator {
  private final Vertx vertx;
  private final CoordinatorVerticle verticle;
  private final String deploymentId;
  private final boolean ownsVertx;

  private Coordinator(Vertx vertx, CoordinatorVerticle verticle, String deploymentId, boolean ownsVertx) {
    this.vertx = vertx;
    this.verticle = verticle;
    this.deploymentId = deploymentId;
    this.ownsVertx = ownsVertx;
  }

  /** Joins the cluster described by the settings and deploys the coordinator in it. */
  public static Future<Coordinator> start(CoordinatorSettings settings) {
    return start(settings, Clock.systemUTC());
  }

  /** As {@link #start(CoordinatorSettings)}, submitting Slurm jobs for sweeps that name a partition. */
  public static Future<Coordinator> start(CoordinatorSettings settings,
      java.util.Optional<io.busload.coordinator.fleet.SlurmSettings> slurm) {
    return Cluster.start(settings.cluster()).compose(vertx -> deploy(vertx, settings, true, Clock.systemUTC(), slurm)
        .recover(e -> {
          vertx.close();
          return Future.failedFuture(e);
        }));
  }

  /** As {@link #start(CoordinatorSettings)}, reading time from {@code clock}. */
  public static Future<Coordinator> start(CoordinatorSettings settings, Clock clock) {
    // On failure close without waiting: a future chained on close() never completes (its callback is due on
    // an event loop that close shuts down), and Main then hung instead of reporting why deploy failed.
    return Cluster.start(settings.cluster()).compose(vertx -> deploy(vertx, settings, true, clock)
        .recover(e -> {
          vertx.close();
          return Future.failedFuture(e);
        }));
  }

  /**
   * Deploys into a Vert.x the caller owns and closes (tests use a plain one when no other member is
   * involved). Codecs are registered unless they already are.
   */
  public static Future<Coordinator> deploy(Vertx vertx, CoordinatorSettings settings) {
    return deploy(vertx, settings, false, Clock.systemUTC());
  }

  /** As {@link #deploy(Vertx, CoordinatorSettings)}, reading time from {@code clock}. */
  public static Future<Coordinator> deploy(Vertx vertx, CoordinatorSettings settings, Clock clock) {
    return deploy(vertx, settings, false, clock);
  }

  private static Future<Coordinator> deploy(Vertx vertx, CoordinatorSettings settings, boolean ownsVertx, Clock clock) {
    return deploy(vertx, settings, ownsVertx, clock, java.util.Optional.empty());
  }

  private static Future<Coordinator> deploy(Vertx vertx, CoordinatorSettings settings, boolean ownsVertx, Clock clock,
      java.util.Optional<io.busload.coordinator.fleet.SlurmSettings> slurm) {
    if (!ownsVertx) {
      registerCodecs(vertx);
    }
    CoordinatorVerticle verticle = new CoordinatorVerticle(settings, clock, slurm);
    return vertx.deployVerticle(verticle).map(id -> new Coordinator(vertx, verticle, id, ownsVertx));
  }

  private static void registerCodecs(Vertx vertx) {
    try {
      Codecs.register(vertx);
    } catch (IllegalStateException alreadyRegistered) {
      // Cluster.start registers them; a second registration is refused and changes nothing.
    }
  }

  public Vertx vertx() {
    return vertx;
  }

  public int httpPort() {
    return verticle.httpPort();
  }

  /** The agents' bridge port actually bound, or -1 when this coordinator serves none. */
  public int bridgePort() {
    return verticle.bridgePort();
  }

  /** Undeploys (closing the REST server and the store) and, when it started it, leaves the cluster. */
  public Future<Void> stop() {
    // Closing Vert.x undeploys the verticle first. Chaining close after undeploy instead would never
    // complete: the chained callback is due on an event loop that the close has just shut down.
    return ownsVertx ? vertx.close() : vertx.undeploy(deploymentId);
  }
}
