package io.busload.coordinator.store;

/**
 * What results of one device under one agent build share lives in result_setups (V20), named by results.setup_key;
 * rows stored before V20 hold their own copies and no key. Every reader of those columns takes them through here, so
 * that either kind of row reads the same.
 */
final class ResultSetups {
  /** Joins a result {@code r} to its setup {@code u}, for a query that reads {@link #column}s. */
  static final String JOIN = " LEFT JOIN result_setups u ON u.key = r.setup_key";

  private ResultSetups() {}

  /** SQL for result {@code r}'s {@code name} (agent_id, fingerprint, suite, ...), with {@link #JOIN}. */
  static String column(String name) {
    return "COALESCE(r." + name + ", u." + name + ")";
  }

  /** {@link #column} for each of {@code names}, comma-separated, in order. */
  static String columns(String... names) {
    StringBuilder sql = new StringBuilder();
    for (String name : names) {
      sql.append(sql.isEmpty() ? "" : ", ").append(column(name));
    }
    return sql.toString();
  }
}
