package io.busload.coordinator.store;

import io.busload.coordinator.TestDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A fresh database on the shared test PostgreSQL, opened as the coordinator opens its own (Flyway included) when the
 * test instance is made and closed after its test, with plain JDBC beside it for what a test checks behind the
 * stores' backs. Register it on an instance field, and the stores can be fields too:
 * {@code @RegisterExtension final OpenDatabase database = new OpenDatabase();}
 * {@code private final AgentStore store = new AgentStore(database.db());}
 */
final class OpenDatabase implements AfterEachCallback {
  /** Only an embedded server keeps its files in the data directory; the shared test server needs none. */
  private static final Path NO_DATA_DIR = Path.of("target", "no-data-dir");

  private final DatabaseSettings settings = TestDatabase.fresh();
  private Database db = Database.open(settings, NO_DATA_DIR);

  @Override
  public void afterEach(ExtensionContext context) {
    db.close();
  }

  DatabaseSettings settings() {
    return settings;
  }

  Database db() {
    return db;
  }

  /** Closes the database and opens it again, as a restarted coordinator would. */
  Database reopen() {
    db.close();
    db = Database.open(settings, NO_DATA_DIR);
    return db;
  }

  /** The first column of the first row of {@code sql}, as text (null for SQL NULL). */
  String text(String sql) throws SQLException {
    try (Connection c = connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  /** The stored result_json of the first row of {@code sql}, unpacked ({@link ResultJson}): the agent's JSON. */
  String resultJson(String sql) throws SQLException {
    try (Connection c = connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return ResultJson.text(rs.getBytes(1));
    }
  }

  /** The first column of the first row of {@code sql}, as a number (a count, a size). */
  long count(String sql) throws SQLException {
    try (Connection c = connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  void execute(String sql) throws SQLException {
    try (Connection c = connect(); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  /** A plain connection of its own, outside the pool. */
  Connection connect() throws SQLException {
    return DriverManager.getConnection(settings.jdbcUrl(), settings.user(), settings.password());
  }
}
