package io.busload.coordinator;

import io.busload.coordinator.store.DatabaseSettings;
import io.busload.protocol.cluster.ClusterSettings;
import io.busload.testsupport.LoopbackCluster;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.TimeUnit;

/**
 * A coordinator that is a member of a test's {@link LoopbackCluster}, stopped when the cluster closes, before the
 * cluster's other members leave, so that no test leaves one running whatever it asserts.
 */
public final class ClusterCoordinator {
  private ClusterCoordinator() {}

  /**
   * Settings of a coordinator member of {@code cluster} on {@code database}: REST on any free loopback port, a tokens
   * file in {@code dir} that accepts {@link Http#TOKEN}.
   */
  public static CoordinatorSettings settings(LoopbackCluster cluster, Path dir, DatabaseSettings database) {
    return new CoordinatorSettings(Http.tokensIn(dir), "127.0.0.1", 0, cluster.settings(ClusterSettings.COORDINATOR),
        database);
  }

  /** Starts a coordinator with {@code settings} (one of {@code cluster}'s), reading time from {@code clock}. */
  public static Coordinator start(LoopbackCluster cluster, CoordinatorSettings settings, Clock clock)
      throws Exception {
    Coordinator coordinator = Coordinator.start(settings, clock).await(60, TimeUnit.SECONDS);
    cluster.onClose(() -> coordinator.stop().await(30, TimeUnit.SECONDS));
    return coordinator;
  }

  /** As {@link #start(LoopbackCluster, CoordinatorSettings, Clock)}, on the system's clock. */
  public static Coordinator start(LoopbackCluster cluster, CoordinatorSettings settings) throws Exception {
    return start(cluster, settings, Clock.systemUTC());
  }
}
