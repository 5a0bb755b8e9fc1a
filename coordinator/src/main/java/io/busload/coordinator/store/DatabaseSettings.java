package io.busload.coordinator.store;

/**
 * Where the store lives: a PostgreSQL server named by JDBC URL (production), or, when {@code jdbcUrl} is null,
 * an embedded PostgreSQL the coordinator starts itself in its data directory (the local default: no setup).
 *
 * <p>One SQL dialect everywhere: the embedded server is the same PostgreSQL, from a Maven Central
 * jar, so what runs locally and in tests is what runs in production.
 *
 * <p>{@code backupBeforeMigrate}: when migrations are pending on a database that holds rows, the coordinator writes
 * a backup into its data folder's {@code backups/} before the first one runs ({@link Backup}).
 */
public record DatabaseSettings(String jdbcUrl, String user, String password, boolean backupBeforeMigrate) {
  public static final DatabaseSettings EMBEDDED = new DatabaseSettings(null, null, null);

  /** With a backup before migrating, the default. */
  public DatabaseSettings(String jdbcUrl, String user, String password) {
    this(jdbcUrl, user, password, true);
  }

  public boolean embedded() {
    return jdbcUrl == null;
  }

  /**
   * Reads {@code BUSLOAD_DB_URL}, {@code BUSLOAD_DB_USER} and {@code BUSLOAD_DB_PASSWORD} (no URL means embedded), and
   * {@code BUSLOAD_BACKUP_BEFORE_MIGRATE} ({@code on}, the default, or {@code off}).
   */
  public static DatabaseSettings fromEnvironment(java.util.Map<String, String> env) {
    String backup = env.getOrDefault("BUSLOAD_BACKUP_BEFORE_MIGRATE", "on").strip().toLowerCase(java.util.Locale.ROOT);
    if (!backup.equals("on") && !backup.equals("off")) {
      throw new IllegalArgumentException("BUSLOAD_BACKUP_BEFORE_MIGRATE: expected on or off, got '" + backup + "'");
    }
    boolean backupFirst = backup.equals("on");
    String url = env.get("BUSLOAD_DB_URL");
    if (url == null || url.isBlank()) {
      return new DatabaseSettings(null, null, null, backupFirst);
    }
    if (!url.trim().startsWith("jdbc:postgresql:")) {
      throw new IllegalArgumentException("BUSLOAD_DB_URL: expected jdbc:postgresql://host:port/database, got '" + url + "'");
    }
    return new DatabaseSettings(url.trim(), env.getOrDefault("BUSLOAD_DB_USER", "busload"),
        env.getOrDefault("BUSLOAD_DB_PASSWORD", ""), backupFirst);
  }

  /** Never prints the password. */
  @Override
  public String toString() {
    return embedded() ? "embedded PostgreSQL" : jdbcUrl + " as " + user;
  }
}
