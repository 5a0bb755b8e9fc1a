package io.busload.coordinator.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.busload.protocol.JsonCodec;
import io.vertx.core.Context;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.function.Function;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationInfoService;
import org.flywaydb.core.api.MigrationVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's PostgreSQL: the connection pool, the embedded server when the settings ask for one, the schema
 * brought up to date by Flyway, and the few JDBC steps every store repeats. The stores ({@link AgentStore},
 * {@link SweepStore}, {@link ResultStore}, {@link ScheduleStore}, ...) share one instance and own their SQL.
 *
 * <p>Every method blocks; call them from worker threads only. A store method is one transaction, so an ack sent
 * after it returns means the data is on disk.
 */
public final class Database implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Database.class);

  private final HikariDataSource pool;
  private final EmbeddedDatabase embedded;
  /** The server the pool reaches (the embedded one's address when embedded), for connections outside the pool. */
  private final DatabaseSettings target;
  /** Pools opened by {@link #apart}, closed with this one. */
  private final List<Database> apart = new java.util.concurrent.CopyOnWriteArrayList<>();

  private Database(HikariDataSource pool, EmbeddedDatabase embedded, DatabaseSettings target) {
    this.pool = pool;
    this.embedded = embedded;
    this.target = target;
  }

  /** The local default: an embedded PostgreSQL kept in {@code dataDir}, started here and stopped by {@link #close()}. */
  public static Database open(Path dataDir) {
    return open(DatabaseSettings.EMBEDDED, dataDir);
  }

  /**
   * Connects to the database (starting the embedded one in {@code dataDir} when the settings say so) and brings
   * its schema up to date with Flyway.
   */
  public static Database open(DatabaseSettings database, Path dataDir) {
    return open(database, dataDir, null);
  }

  /**
   * {@link #open(DatabaseSettings, Path)} with the schema brought only up to {@code schemaVersion} (null: the newest).
   * For tests of a migration, which store rows as an older schema held them and then migrate
   * (ResultPartitionsTest); the coordinator always runs the newest.
   */
  public static Database open(DatabaseSettings database, Path dataDir, String schemaVersion) {
    Database db = connect(database, dataDir);
    try {
      if (database.backupBeforeMigrate()) {
        db.backupIfMigrating(dataDir, schemaVersion);
      }
      var migration = db.migrate(schemaVersion);
      LOG.info("store on {}: schema version {} ({} migrations applied now)", database.embedded()
          ? "embedded PostgreSQL in " + dataDir : database, migration.targetSchemaVersion, migration.migrationsExecuted);
    } catch (RuntimeException e) {
      db.close();
      throw e;
    }
    return db;
  }

  /**
   * The server of {@code database} (the embedded one in {@code dataDir} started when the settings say so) through a
   * pool, its schema left as it is: {@link #open} migrates next; a restore first checks that there is nothing to
   * lose.
   */
  static Database connect(DatabaseSettings database, Path dataDir) {
    requireWorker();
    EmbeddedDatabase embedded = null;
    DatabaseSettings target = database;
    if (database.embedded()) {
      try {
        Files.createDirectories(dataDir);
      } catch (IOException e) {
        throw new IllegalStateException("cannot create data directory " + dataDir + ": " + e.getMessage(), e);
      }
      embedded = EmbeddedDatabase.start(dataDir);
      target = embedded.settings();
    }
    HikariConfig config = new HikariConfig();
    config.setPoolName("busload-store");
    config.setJdbcUrl(target.jdbcUrl());
    config.setUsername(target.user());
    config.setPassword(target.password());
    config.setMaximumPoolSize(8);
    config.setAutoCommit(true);
    try {
      return new Database(new HikariDataSource(config), embedded, target);
    } catch (RuntimeException e) {
      if (embedded != null) {
        embedded.close();
      }
      throw e;
    }
  }

  private Flyway flyway(String schemaVersion) {
    var flyway = Flyway.configure().dataSource(pool).locations("classpath:db/migration");
    if (schemaVersion != null) {
      flyway.target(schemaVersion);
    }
    return flyway.load();
  }

  /** Brings the schema up to {@code schemaVersion} (null: the newest) with the coordinator's Flyway migrations. */
  org.flywaydb.core.api.output.MigrateResult migrate(String schemaVersion) {
    return flyway(schemaVersion).migrate();
  }

  /** The schema version applied (null: no schema yet) and the newest this coordinator's migrations reach. */
  record Migrations(MigrationVersion current, MigrationVersion newest, int pending) {}

  Migrations migrations() {
    MigrationInfoService info = flyway(null).info();
    MigrationVersion newest = java.util.Arrays.stream(info.all()).map(MigrationInfo::getVersion)
        .filter(java.util.Objects::nonNull).max(MigrationVersion::compareTo).orElse(MigrationVersion.EMPTY);
    MigrationInfo current = info.current();
    return new Migrations(current == null ? null : current.getVersion(), newest, info.pending().length);
  }

  /**
   * A backup into {@code dataDir/backups} when migrations are pending on a schema that holds rows, before any of
   * them runs: a migration that goes wrong on a lab's data then loses nothing. A new or empty database has nothing
   * to keep.
   */
  private void backupIfMigrating(Path dataDir, String schemaVersion) {
    Migrations state = migrations();
    if (state.current() == null || state.pending() == 0
        || (schemaVersion != null && state.current().compareTo(MigrationVersion.fromVersion(schemaVersion)) >= 0)
        || inTransaction(Backup::tablesWithRows).isEmpty()) {
      return;
    }
    Path folder = dataDir.resolve("backups");
    String name = "before-migrating-schema-" + state.current() + "-"
        + java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC)
            .format(Instant.now());
    try {
      Files.createDirectories(folder, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
          java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
    } catch (IOException e) {
      throw new IllegalStateException("cannot create " + folder + " for the backup before migrating: "
          + e.getMessage() + " (BUSLOAD_BACKUP_BEFORE_MIGRATE=off migrates without one)", e);
    }
    // Names are to the second, and a backup is never written over: another store of this data folder that migrated
    // from the same schema within the second gets the next free suffix.
    Path file = folder.resolve(name + ".zip");
    for (int n = 2; Files.exists(file); n++) {
      file = folder.resolve(name + "-" + n + ".zip");
    }
    LOG.info("schema version {} has {} migration(s) pending: writing a backup to {} first"
        + " (BUSLOAD_BACKUP_BEFORE_MIGRATE=off skips it)", state.current(), state.pending(), file);
    Backup.Manifest manifest = Backup.write(this, file);
    LOG.info("backup before migrating written: {} ({} rows of schema version {})", file, manifest.rows(),
        manifest.schemaVersion());
  }

  /**
   * A connection of its own, outside the pool, for a session that must live as long as its holder wants and end
   * when the holder goes ({@link LeaderLease}). Connecting gives up after {@code timeoutSeconds}, and so does every
   * read on it, so a server that stops answering is noticed instead of waited on.
   */
  Connection dedicatedConnection(int timeoutSeconds) throws SQLException {
    requireWorker();
    java.util.Properties properties = new java.util.Properties();
    properties.setProperty("user", target.user());
    properties.setProperty("password", target.password() == null ? "" : target.password());
    properties.setProperty("connectTimeout", Integer.toString(timeoutSeconds));
    properties.setProperty("socketTimeout", Integer.toString(timeoutSeconds));
    properties.setProperty("ApplicationName", "busload-coordinator-lease");
    return java.sql.DriverManager.getConnection(target.jdbcUrl(), properties);
  }

  /**
   * The same database through a pool of its own of {@code connections}, closed with this one: the stores built on it
   * (the analysis reads) wait for their own connections and never for the ones that store results.
   */
  public Database apart(String name, int connections) {
    HikariConfig config = new HikariConfig();
    config.setPoolName(name);
    config.setJdbcUrl(pool.getJdbcUrl());
    config.setUsername(pool.getUsername());
    config.setPassword(pool.getPassword());
    config.setMaximumPoolSize(connections);
    config.setAutoCommit(true);
    Database view = new Database(new HikariDataSource(config), null, target);
    apart.add(view);
    return view;
  }

  @Override
  public void close() {
    apart.forEach(Database::close);
    pool.close();
    if (embedded != null) {
      embedded.close();
    }
  }

  /**
   * Whether the database answers within about {@code timeoutSeconds}: a new connection, outside the pool, that the
   * driver finds valid. The readiness probe asks, so that an orchestrator stops routing to a coordinator whose
   * store is gone; the pool would wait its full connection timeout for a server that is down.
   */
  public boolean answers(int timeoutSeconds) {
    requireWorker();
    Properties login = new Properties();
    login.setProperty("user", pool.getUsername());
    if (pool.getPassword() != null) {
      login.setProperty("password", pool.getPassword());
    }
    login.setProperty("loginTimeout", Integer.toString(timeoutSeconds));
    login.setProperty("connectTimeout", Integer.toString(timeoutSeconds));
    try (Connection c = DriverManager.getConnection(pool.getJdbcUrl(), login)) {
      return c.isValid(timeoutSeconds);
    } catch (SQLException e) {
      LOG.warn("store does not answer: {}", e.getMessage());
      return false;
    }
  }

  /** Work on one connection inside a transaction. */
  @FunctionalInterface
  interface Work<T> {
    T run(Connection c) throws SQLException;
  }

  /** Sets a statement's parameters. */
  @FunctionalInterface
  interface Binder {
    Binder NONE = s -> {};

    void bind(PreparedStatement s) throws SQLException;
  }

  /** Reads the current row of a result set into a record. */
  @FunctionalInterface
  interface Row<T> {
    T read(ResultSet rs) throws SQLException;
  }

  /** Runs {@code work} in one transaction: committed when it returns, rolled back when it throws. */
  <T> T inTransaction(Work<T> work) {
    requireWorker();
    try (Connection c = pool.getConnection()) {
      c.setAutoCommit(false);
      try {
        T value = work.run(c);
        c.commit();
        return value;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    } catch (SQLException e) {
      throw new StoreException(e);
    }
  }

  /** Every row of one query, in its own transaction. */
  <T> List<T> list(String sql, Binder binder, Row<T> row) {
    return inTransaction(c -> list(c, sql, binder, row));
  }

  /** The first row of one query, if any, in its own transaction. */
  <T> Optional<T> first(String sql, Binder binder, Row<T> row) {
    return inTransaction(c -> first(c, sql, binder, row));
  }

  /** Every row of one query, within the caller's transaction. */
  static <T> List<T> list(Connection c, String sql, Binder binder, Row<T> row) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(sql)) {
      binder.bind(s);
      try (ResultSet rs = s.executeQuery()) {
        List<T> rows = new ArrayList<>();
        while (rs.next()) {
          rows.add(row.read(rs));
        }
        return rows;
      }
    }
  }

  /** The first row of one query, if any, within the caller's transaction. */
  static <T> Optional<T> first(Connection c, String sql, Binder binder, Row<T> row) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(sql)) {
      binder.bind(s);
      try (ResultSet rs = s.executeQuery()) {
        return rs.next() ? Optional.of(row.read(rs)) : Optional.empty();
      }
    }
  }

  /** One statement that returns no rows, within the caller's transaction; returns how many rows it changed. */
  static int update(Connection c, String sql, Binder binder) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(sql)) {
      binder.bind(s);
      return s.executeUpdate();
    }
  }

  /**
   * Binds {@code values} to the first parameters, in order, each as its Java type says (a UUID as uuid, a Double as
   * double precision, an OffsetDateTime as a timestamp with time zone). A null binds untyped: the server takes its
   * type from where the parameter stands, which for an INSERT's VALUES or an UPDATE's SET is the column's. For a
   * parameter compared with NULL in the statement, bind a typed NULL instead ({@link #strings}).
   */
  static void values(PreparedStatement s, Object... values) throws SQLException {
    for (int i = 0; i < values.length; i++) {
      s.setObject(i + 1, values[i]);
    }
  }

  /**
   * One statement run once per item of {@code items}, sent as one batch, within the caller's transaction;
   * {@code parameters} gives an item's parameters, bound as {@link #values(PreparedStatement, Object...)} binds them.
   */
  static <T> void batch(Connection c, String sql, Collection<T> items, Function<T, Object[]> parameters)
      throws SQLException {
    try (PreparedStatement s = c.prepareStatement(sql)) {
      for (T item : items) {
        values(s, parameters.apply(item));
        s.addBatch();
      }
      s.executeBatch();
    }
  }

  /** {@link #batch(Connection, String, Collection, Function)} in a transaction of its own; none for no items. */
  <T> void batch(String sql, Collection<T> items, Function<T, Object[]> parameters) {
    if (items.isEmpty()) {
      return;
    }
    inTransaction(c -> {
      batch(c, sql, items, parameters);
      return null;
    });
  }

  /** Binds {@code values} as text to the first parameters, in order; a null binds as a text NULL. */
  static void strings(PreparedStatement s, String... values) throws SQLException {
    for (int i = 0; i < values.length; i++) {
      s.setString(i + 1, values[i]);
    }
  }

  /** JDBC blocks; on an event loop it would stall every agent and HTTP client served by that loop. */
  private static void requireWorker() {
    if (Context.isOnEventLoopThread()) {
      throw new IllegalStateException("JDBC called on an event-loop thread (" + Thread.currentThread().getName() + ")");
    }
  }

  static OffsetDateTime timestamp(Instant instant) {
    return instant == null ? null : instant.atOffset(ZoneOffset.UTC);
  }

  static Instant instant(ResultSet rs, int column) throws SQLException {
    OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
    return value == null ? null : value.toInstant();
  }

  /** A value as the JSON text a column keeps. */
  static String json(Object value) {
    return new String(JsonCodec.toJson(value), StandardCharsets.UTF_8);
  }

  /** A JSON column read back; text that is not JSON fails the read with {@code notJson} ("sweep options are not JSON"). */
  static <T> T json(String text, TypeReference<T> type, String notJson) throws SQLException {
    try {
      return JsonCodec.MAPPER.readValue(text, type);
    } catch (JsonProcessingException e) {
      throw new SQLException(notJson + ": " + e.getOriginalMessage(), e);
    }
  }
}
