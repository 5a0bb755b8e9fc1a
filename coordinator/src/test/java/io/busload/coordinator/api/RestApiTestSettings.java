package io.busload.coordinator.api;

import io.busload.coordinator.CoordinatorSettings;
import io.busload.protocol.cluster.ClusterSettings;
import java.nio.file.Path;
import java.util.List;

/** Settings for a coordinator deployed into a plain Vert.x: any free REST port, loopback, no cluster
 * joined, a fresh database on the shared test PostgreSQL, and a tokens file accepting {@code Http.TOKEN}. */
public final class RestApiTestSettings {
  private RestApiTestSettings() {}

  public static CoordinatorSettings of(Path dir) {
    return new CoordinatorSettings(io.busload.coordinator.Http.tokensIn(dir), "127.0.0.1", 0,
        new ClusterSettings("unused", "127.0.0.1", null, 5701, 0, List.of("127.0.0.1"), ClusterSettings.COORDINATOR),
        io.busload.coordinator.TestDatabase.fresh());
  }
}
