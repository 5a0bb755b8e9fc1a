package io.busload.coordinator.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A coordinator killed with -9 leaves its PostgreSQL running; the next start must take over its data. */
class EmbeddedDatabaseRestartTest {

  /** A child JVM that starts the store, commits a row and halts like kill -9: no shutdown hook runs. */
  public static void main(String[] args) throws Exception {
    EmbeddedDatabase database = EmbeddedDatabase.start(Path.of(args[0]));
    try (Connection c = connect(database); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE kept (id int PRIMARY KEY)");
      s.execute("INSERT INTO kept VALUES (42)");
    }
    Runtime.getRuntime().halt(0);
  }

  @Test
  void start_serverLeftRunningByAKilledCoordinator_isStoppedAndItsRowsAreKept(@TempDir Path data) throws Exception {
    Process crashed = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"),
        "-cp", System.getProperty("java.class.path"), EmbeddedDatabaseRestartTest.class.getName(), data.toString())
        .inheritIO().start();
    assertThat(crashed.waitFor(120, TimeUnit.SECONDS)).isTrue();
    long leftOver = Long.parseLong(Files.readAllLines(data.resolve("postgres/postmaster.pid")).getFirst().trim());
    assertThat(ProcessHandle.of(leftOver).map(ProcessHandle::isAlive)).contains(true);

    try (EmbeddedDatabase restarted = EmbeddedDatabase.start(data);
        Connection c = connect(restarted);
        Statement s = c.createStatement();
        ResultSet rows = s.executeQuery("SELECT id FROM kept")) {
      assertThat(ProcessHandle.of(leftOver).map(ProcessHandle::isAlive)).isNotEqualTo(java.util.Optional.of(true));
      assertThat(rows.next()).isTrue();
      assertThat(rows.getInt(1)).isEqualTo(42);
    }
  }

  private static Connection connect(EmbeddedDatabase database) throws Exception {
    DatabaseSettings settings = database.settings();
    return DriverManager.getConnection(settings.jdbcUrl(), settings.user(), settings.password());
  }
}
