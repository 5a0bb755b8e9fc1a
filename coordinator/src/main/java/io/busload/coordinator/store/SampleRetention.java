package io.busload.coordinator.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Ages raw samples out: every month partition of result_samples (V16) whose whole month lies further back than the
 * retention is dropped as one table, so the space comes back at once and no kept table is rewritten or bloated. The
 * results' summaries (medians, spreads, clocks, energy, the columns verdicts and change points read) stay in results,
 * untouched. {@code sample_retention.dropped_before} moves forward in the same transaction, so a reader always knows
 * whether a result's samples were aged out or never existed.
 *
 * <p>A whole month goes at once, so samples live between the retention and the retention plus a month.
 * Blocks: call from a worker thread.
 */
public final class SampleRetention {
  /** SQL: the instant from which samples are kept (everything when none were ever dropped). */
  static final String KEPT_SINCE = "coalesce((SELECT dropped_before FROM sample_retention), '-infinity'::timestamptz)";
  /** How long the drop waits for ingest's lock on result_samples before it gives up until the next run. */
  private static final String LOCK_TIMEOUT = "5s";

  private final Database db;

  public SampleRetention(Database db) {
    this.db = db;
  }

  /**
   * What one run dropped.
   *
   * @param months the months whose samples were dropped, oldest first
   * @param results how many results' samples went with them
   * @param bytes the partitions' size on disk, indexes included
   * @param droppedBefore results measured before this have no samples now (null: none were ever dropped)
   */
  public record Dropped(List<YearMonth> months, long results, long bytes, Instant droppedBefore) {}

  /** Drops the samples of every month that ended {@code keep} or longer before {@code now}. */
  public Dropped ageOut(Instant now, Duration keep) {
    Instant cutoff = now.minus(keep);
    return db.inTransaction(c -> {
      try (Statement s = c.createStatement()) {
        s.execute("SET LOCAL lock_timeout = '" + LOCK_TIMEOUT + "'");
      }
      List<YearMonth> months = new ArrayList<>();
      long results = 0;
      long bytes = 0;
      Instant droppedBefore = droppedBefore(c).orElse(null);
      for (String partition : partitions(c)) {
        YearMonth month = YearMonth.parse(partition.substring("result_samples_".length()).replace('_', '-'));
        Instant end = month.plusMonths(1).atDay(1).atStartOfDay(ZoneOffset.UTC).toInstant();
        if (end.isAfter(cutoff)) {
          continue;
        }
        results += Database.first(c, "SELECT count(*) FROM " + partition, Database.Binder.NONE,
            rs -> rs.getLong(1)).orElse(0L);
        bytes += Database.first(c, "SELECT pg_total_relation_size(?::regclass)", s -> s.setString(1, partition),
            rs -> rs.getLong(1)).orElse(0L);
        try (Statement s = c.createStatement()) {
          s.execute("DROP TABLE " + partition);
        }
        months.add(month);
        if (droppedBefore == null || end.isAfter(droppedBefore)) {
          droppedBefore = end;
        }
      }
      if (!months.isEmpty()) {
        Instant kept = droppedBefore;
        Database.update(c, "UPDATE sample_retention SET dropped_before = ?",
            s -> s.setObject(1, Database.timestamp(kept)));
      }
      return new Dropped(months, results, bytes, droppedBefore);
    });
  }

  /** Results measured before this have had their samples aged out; empty when none were ever dropped. */
  public Optional<Instant> droppedBefore() {
    return db.inTransaction(SampleRetention::droppedBefore);
  }

  private static Optional<Instant> droppedBefore(Connection c) throws SQLException {
    return Database.first(c, "SELECT dropped_before FROM sample_retention WHERE dropped_before IS NOT NULL",
        Database.Binder.NONE, rs -> Database.instant(rs, 1));
  }

  /** result_samples' month partitions, oldest first (their names sort by month). */
  private static List<String> partitions(Connection c) throws SQLException {
    return Database.list(c, "SELECT child.relname FROM pg_inherits i JOIN pg_class child ON child.oid = i.inhrelid"
        + " WHERE i.inhparent = 'result_samples'::regclass AND child.relname ~ '^result_samples_\\d{4}_\\d{2}$'"
        + " ORDER BY child.relname", Database.Binder.NONE, rs -> rs.getString(1));
  }
}
