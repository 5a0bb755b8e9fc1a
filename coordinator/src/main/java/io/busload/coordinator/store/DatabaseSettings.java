package io.busload.coordinator.store;

/**
 * Where the store lives: a PostgreSQL server named by JDBC URL (production), or, when {@code jdbcUrl} is null,
 * an embedded PostgreSQL the coordinator starts itself in its data directory (the local default: no setup).
 *
 * <p>One SQL dialect everywhere: the embedded server is the same PostgreSQL, from a Maven Central
 * jar, so what runs locally and in tests is what runs in production.
 */
public record DatabaseSettings(String jdbcUrl, String user, String password) {
  public static final DatabaseSettings EMBEDDED = new DatabaseSettings(null, null, null);

  public boolean embedded() {
    return jdbcUrl == null;
  }

  /** Reads {@code BUSLOAD_DB_URL}, {@code BUSLOAD_DB_USER} and {@code BUSLOAD_DB_PASSWORD}; no URL means embedded. */
  public static DatabaseSettings fromEnvironment(java.util.Map<String, String> env) {
    String url = env.get("BUSLOAD_DB_URL");
    if (url == null || url.isBlank()) {
      return EMBEDDED;
    }
    if (!url.trim().startsWith("jdbc:postgresql:")) {
      throw new IllegalArgumentException("BUSLOAD_DB_URL: expected jdbc:postgresql://host:port/database, got '" + url + "'");
    }
    return new DatabaseSettings(url.trim(), env.getOrDefault("BUSLOAD_DB_USER", "busload"),
        env.getOrDefault("BUSLOAD_DB_PASSWORD", ""));
  }

  /** Never prints the password. */
  @Override
  public String toString() {
    return embedded() ? "embedded PostgreSQL" : jdbcUrl + " as " + user;
  }
}
