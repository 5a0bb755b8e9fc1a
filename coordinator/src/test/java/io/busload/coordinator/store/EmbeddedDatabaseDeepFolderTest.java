package io.busload.coordinator.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A data folder so deep that a Unix socket's path in it would pass the 107 bytes such a path may have: PostgreSQL
 * refuses to start with one there, so the store starts it without a socket, over TCP alone, and a restart finds every
 * row.
 */
class EmbeddedDatabaseDeepFolderTest {
  @Test
  void start_dataFolderTooDeepForASocket_startsOverTcpWithoutSocketAndKeepsRowsOverARestart(@TempDir Path parent)
      throws Exception {
    Path data = Files.createDirectories(parent.resolve("faults-kill-coordinator-" + "7".repeat(60)).resolve("data"));
    Path run = data.resolve(EmbeddedDatabase.PRIVATE_FOLDER);
    assertThat((run + "/.s.PGSQL.5432").length()).isGreaterThan(EmbeddedDatabase.MAX_SOCKET_PATH);

    try (EmbeddedDatabase database = EmbeddedDatabase.start(data);
        Connection c = connect(database); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE kept (id int PRIMARY KEY)");
      s.execute("INSERT INTO kept VALUES (7)");
      try (Stream<Path> files = Files.list(run)) {
        assertThat(files.map(p -> p.getFileName().toString())).noneMatch(name -> name.startsWith(".s.PGSQL."));
      }
    }
    try (EmbeddedDatabase restarted = EmbeddedDatabase.start(data);
        Connection c = connect(restarted); Statement s = c.createStatement();
        ResultSet rows = s.executeQuery("SELECT id FROM kept")) {
      assertThat(rows.next()).isTrue();
      assertThat(rows.getInt(1)).isEqualTo(7);
    }
  }

  @Test
  void socketFolder_shortAndTooLongPaths_thePrivateFolderOrNone() {
    assertThat(EmbeddedDatabase.socketFolder(Path.of("/var/lib/busload/postgres-run")))
        .isEqualTo("/var/lib/busload/postgres-run");
    assertThat(EmbeddedDatabase.socketFolder(Path.of("/check/work/main/deploy/target/faults/"
        + "bridge-kill-coordinator-513844743410568353/data/postgres-run"))).isEmpty();
  }

  private static Connection connect(EmbeddedDatabase database) throws Exception {
    DatabaseSettings settings = database.settings();
    return DriverManager.getConnection(settings.jdbcUrl(), settings.user(), settings.password());
  }
}
