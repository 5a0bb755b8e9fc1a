package io.busload.coordinator.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The right to lead the fleet: a PostgreSQL session-level advisory lock, held by one coordinator's own connection
 * for as long as that connection lives. The database is what the coordinators share and what a stranger on the
 * cluster port cannot reach without its credentials, so leadership cannot be taken by joining the cluster
 * (docs/design/fleet-transport.md, "Who leads").
 *
 * <p>PostgreSQL ends the lock with the session: a coordinator that exits or is killed gives the lease up as soon as
 * the server sees its connection close, and the next {@link #renew()} of another coordinator takes it. A coordinator
 * whose connection stops answering stops leading at its next renewal, which gives up after {@link #CHECK_SECONDS};
 * the server ends that session itself after its TCP keepalives go unanswered (about
 * {@link #SERVER_GIVES_UP_SECONDS} s), so the old leader has stepped down before another can take over.
 *
 * <p>Every method blocks: call them from worker threads. {@link #holds()} only reads a flag, for the event loop.
 */
public final class LeaderLease implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LeaderLease.class);
  /** The advisory lock's key: "busload" in ASCII, then 1. Advisory locks are per database. */
  static final long KEY = 0x6275736c6f616401L;
  /** How long a check of the connection, or a connect, may take before the lease counts as lost. */
  public static final int CHECK_SECONDS = 4;
  private static final int KEEPALIVE_IDLE = 5;
  private static final int KEEPALIVE_INTERVAL = 2;
  private static final int KEEPALIVE_COUNT = 3;
  static final int SERVER_GIVES_UP_SECONDS = KEEPALIVE_IDLE + KEEPALIVE_INTERVAL * KEEPALIVE_COUNT;

  private final Database database;
  private Connection connection;
  private volatile boolean holds;
  private boolean closed;
  private volatile String lastFailure;

  public LeaderLease(Database database) {
    this.database = database;
  }

  /** Whether this coordinator held the lease at the last {@link #renew()}. Cheap: safe on the event loop. */
  public boolean holds() {
    return holds;
  }

  /** False while the last {@link #renew()} could not reach the database. */
  public boolean reachable() {
    return lastFailure == null;
  }

  /**
   * Checks that the connection holding the lease is alive, or tries to take the lease when it is not held here.
   * Returns {@link #holds()}. A database that cannot be reached means no lease, logged once until it comes back.
   */
  public synchronized boolean renew() {
    if (closed) {
      return false;
    }
    try {
      if (connection != null && !connection.isValid(CHECK_SECONDS)) {
        drop("its connection to the database stopped answering");
      }
      if (connection == null) {
        connection = database.dedicatedConnection(CHECK_SECONDS);
        try (Statement s = connection.createStatement()) {
          // The server's side of "a holder that went silent": without these it would wait on the system's
          // keepalive (two hours by default) before freeing the lock.
          s.execute("SET tcp_keepalives_idle = " + KEEPALIVE_IDLE + "; SET tcp_keepalives_interval = "
              + KEEPALIVE_INTERVAL + "; SET tcp_keepalives_count = " + KEEPALIVE_COUNT);
        }
      }
      if (!holds) {
        try (PreparedStatement s = connection.prepareStatement("SELECT pg_try_advisory_lock(?)")) {
          s.setLong(1, KEY);
          try (ResultSet rs = s.executeQuery()) {
            rs.next();
            holds = rs.getBoolean(1);
          }
        }
      }
      if (lastFailure != null) {
        LOG.info("leader lease: the database answers again");
        lastFailure = null;
      }
    } catch (SQLException | RuntimeException e) {
      String failure = String.valueOf(e.getMessage());
      if (!failure.equals(lastFailure)) {
        LOG.warn("leader lease: cannot reach the database, so this coordinator does not lead: {}", failure);
        lastFailure = failure;
      }
      drop(null);
    }
    return holds;
  }

  /**
   * Gives the lease up at once and takes no new one. The lock is released by a statement before the session closes:
   * the server frees a closed session's locks only when its backend has ended, a moment later, and another
   * coordinator's renewal in that moment would find the lease still taken.
   */
  @Override
  public synchronized void close() {
    closed = true;
    if (holds && connection != null) {
      try (PreparedStatement s = connection.prepareStatement("SELECT pg_advisory_unlock(?)")) {
        s.setQueryTimeout(CHECK_SECONDS);
        s.setLong(1, KEY);
        s.execute();
      } catch (SQLException e) {
        LOG.debug("releasing the lease before closing its session: {}", e.getMessage());
      }
    }
    drop(null);
  }

  private void drop(String why) {
    if (holds && why != null) {
      LOG.warn("leader lease lost: {}", why);
    }
    holds = false;
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException e) {
        LOG.debug("closing the lease's connection: {}", e.getMessage());
      }
      connection = null;
    }
  }
}
