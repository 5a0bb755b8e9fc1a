package io.busload.coordinator.api;

import io.busload.coordinator.CoordinatorSettings;
import io.busload.coordinator.Http;
import io.busload.coordinator.TestDatabase;
import io.busload.protocol.cluster.ClusterSettings;
import io.busload.protocol.cluster.FleetTls;
import java.nio.file.Path;
import java.util.List;

/** Settings for a coordinator deployed into a plain Vert.x: any free REST port, loopback, no cluster
 * joined, a fresh database on the shared test PostgreSQL, and a tokens file accepting {@code Http.TOKEN}. */
public final class RestApiTestSettings {
  private static final String LOOPBACK = "127.0.0.1";

  private RestApiTestSettings() {}

  private static ClusterSettings noCluster() {
    return new ClusterSettings("unused", LOOPBACK, null, 5701, 0, List.of(LOOPBACK), ClusterSettings.COORDINATOR);
  }

  public static CoordinatorSettings of(Path dir) {
    return new CoordinatorSettings(Http.tokensIn(dir), LOOPBACK, 0, noCluster(), TestDatabase.fresh());
  }

  /**
   * As {@link #of}, with the coordinator's fleet identity read from {@code certs/coordinator-c1} (the layout
   * {@code FleetCerts.issue} writes), so that it can open the agent bridge and check fleet certificates; REST is
   * served over HTTPS when {@code https} is set.
   */
  public static CoordinatorSettings withFleetTls(Path dir, Path certs, boolean https) {
    Path data = Http.tokensIn(dir);
    return new CoordinatorSettings(data, LOOPBACK, 0,
        noCluster().withTls(FleetTls.inDirectory(certs.resolve("coordinator-c1"))), TestDatabase.fresh(),
        data.resolve(CoordinatorSettings.API_TOKENS_FILE_NAME), null, https);
  }
}
