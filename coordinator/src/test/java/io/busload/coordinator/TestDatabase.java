package io.busload.coordinator;

import io.busload.coordinator.store.DatabaseSettings;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * One real PostgreSQL server for the whole test JVM (it takes about 2 s to start), with a fresh database for
 * every caller, so tests share nothing but the server.
 */
public final class TestDatabase {
  private static EmbeddedPostgres server;

  private TestDatabase() {}

  /** A new, empty database on the shared server. */
  public static synchronized DatabaseSettings fresh() {
    try {
      if (server == null) {
        server = EmbeddedPostgres.builder().start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
          try {
            server.close();
          } catch (IOException e) {
            System.err.println("test PostgreSQL did not stop: " + e.getMessage());
          }
        }));
      }
      String name = "t_" + UUID.randomUUID().toString().replace("-", "");
      try (Connection c = server.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
        s.execute("CREATE DATABASE " + name);
      }
      return new DatabaseSettings(server.getJdbcUrl("postgres", name), "postgres", "postgres");
    } catch (IOException | SQLException e) {
      throw new IllegalStateException("test PostgreSQL: " + e.getMessage(), e);
    }
  }

  /** A plain JDBC connection to {@code settings}' database, for what a test or bench checks behind the stores' backs. */
  public static Connection connect(DatabaseSettings settings) throws SQLException {
    return java.sql.DriverManager.getConnection(settings.jdbcUrl(), settings.user(), settings.password());
  }

  /** The first column of the first row of {@code sql}, as text (null for SQL NULL). */
  public static String first(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement(); java.sql.ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }
}
