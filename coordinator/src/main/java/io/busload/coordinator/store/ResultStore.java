package io.busload.coordinator.store;

import static io.busload.coordinator.store.Database.instant;
import static io.busload.coordinator.store.Database.timestamp;

import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Results with their samples (and, for profiled ones, their {@link ResultCounters}). A result is never changed
 * once stored: every insert skips an id that is stored already, whatever the measuredAt it comes with (the id is
 * taken in result_ids, which is not partitioned by time), so a redelivered result (its ack was lost) is stored once
 * and the first copy wins; {@link #storeIncoming} also says which results came under a taken id with other
 * contents.
 */
public final class ResultStore {
  private final Database db;

  public ResultStore(Database db) {
    this.db = db;
  }

  /** Stores a result and its samples unless one with its id is stored already; returns whether it was new. */
  public boolean insertResult(KernelResult result, Instant now) {
    return !insertResults(List.of(result), now).isEmpty();
  }

  /**
   * Stores a batch of results in one transaction and one statement, returning the ids that were new. Duplicates,
   * in the batch or already stored, are skipped, so every result of the batch may be acked once this returns
   * (storing is idempotent by the agent's id: docs/design/invariants.md#acks). Each result's JSON is encoded here.
   */
  public Set<UUID> insertResults(List<KernelResult> results, Instant now) {
    List<Incoming> incoming = new ArrayList<>(results.size());
    for (KernelResult r : results) {
      incoming.add(new Incoming(r, null));
    }
    return insertIncoming(incoming, now);
  }

  /**
   * A result to store and the UTF-8 JSON to keep as its {@code result_json}: what the agent sent, when the intake
   * found it storable as it is, or null to encode the record here.
   */
  public record Incoming(KernelResult result, byte[] json) {}

  /** {@link #insertResults} for results that may carry their JSON already; see {@link ResultColumns} for the speed. */
  public Set<UUID> insertIncoming(List<Incoming> results, Instant now) {
    ResultColumns columns = new ResultColumns(results);
    return db.inTransaction(c -> insertColumns(c, columns, now));
  }

  /**
   * What storing a batch did: the ids stored now, and every result of the batch (by its place in it) whose id is
   * stored with other contents, with which fields differ. Those were not stored; the rest of the batch was.
   */
  public record Outcome(Set<UUID> fresh, Map<Integer, String> conflicts) {}

  /**
   * {@link #insertIncoming}, and each result whose id was not new compared with the stored one in the same
   * transaction: the same record again (a sender that lost its ack) is no conflict, anything else is. A second result
   * of the batch under an id of the batch is compared with the first.
   */
  public Outcome storeIncoming(List<Incoming> results, Instant now) {
    ResultColumns columns = new ResultColumns(results);
    return db.inTransaction(c -> {
      Set<UUID> fresh = insertColumns(c, columns, now);
      return new Outcome(fresh, conflicts(c, columns.records, fresh));
    });
  }

  /**
   * Read after the insert, in its transaction: a concurrent batch holding the same id has committed by then (the
   * insert into result_ids waited for it), so two results of different contents under one id cannot both pass.
   */
  private static Map<Integer, String> conflicts(Connection c, List<KernelResult> records, Set<UUID> fresh)
      throws SQLException {
    Set<UUID> seen = new HashSet<>();
    List<Integer> repeats = new ArrayList<>();
    for (int i = 0; i < records.size(); i++) {
      UUID id = records.get(i).id();
      if (!seen.add(id) || !fresh.contains(id)) {
        repeats.add(i);
      }
    }
    if (repeats.isEmpty()) {
      return Map.of();
    }
    Map<UUID, StoredSamples.Stored> stored = new HashMap<>();
    try (PreparedStatement s = c.prepareStatement("SELECT r.id, r.result_json, " + StoredSamples.COLUMN
        + ", " + StoredSamples.AGED + " FROM results r" + StoredSamples.JOIN + " WHERE r.id = ANY(?::uuid[])")) {
      s.setArray(1, c.createArrayOf("uuid", repeats.stream().map(i -> records.get(i).id()).distinct().toArray()));
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          stored.put(rs.getObject(1, UUID.class),
              new StoredSamples.Stored(StoredSamples.result(rs.getBytes(2), rs.getArray(3)), rs.getBoolean(4)));
        }
      }
    }
    Map<Integer, String> conflicts = new HashMap<>();
    for (int i : repeats) {
      KernelResult incoming = records.get(i);
      KernelResult existing = stored.containsKey(incoming.id())
          ? stored.get(incoming.id()).comparableTo(incoming) : null;
      // Where the coordinator got a result is its own note, not part of the measurement.
      String different = existing == null ? "its id is taken but no result is stored under it"
          : ResultDifference.between(incoming.withOrigin(null), existing.withOrigin(null));
      if (different != null) {
        conflicts.put(i, different);
      }
    }
    return conflicts;
  }

  /** {@link #insertIncoming} within the caller's transaction (a pushed file is stored in one). */
  static Set<UUID> insertIncoming(Connection c, List<Incoming> results, Instant now) throws SQLException {
    return insertColumns(c, new ResultColumns(results), now);
  }

  private static Set<UUID> insertColumns(Connection c, ResultColumns columns, Instant now) throws SQLException {
    // One cheap call a batch (a catalog look-up per month, usually one): PostgreSQL refuses a row whose month has no
    // partition, and a new month's partition is made the first time a result of it arrives.
    try (PreparedStatement p = c.prepareStatement(ResultColumns.PARTITIONS)) {
      p.setArray(1, c.createArrayOf("text", columns.months()));
      p.executeQuery().close();
    }
    columns.setupKeys(c);
    try (PreparedStatement s = c.prepareStatement(ResultColumns.INSERT)) {
      s.setObject(1, timestamp(now));
      columns.bind(c, s, 2);
      Set<UUID> inserted = new HashSet<>();
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          inserted.add(rs.getObject(1, UUID.class));
        }
      }
      ResultCounters.insert(c, columns.records, inserted); // profiled results only; same transaction
      return inserted;
    }
  }

  /** The samples of one stored result, in measuring order; none where they were aged out ({@link SampleRetention}). */
  public List<Double> samples(UUID resultId) {
    return db.first("SELECT samples FROM result_samples WHERE result_id = ?", s -> s.setObject(1, resultId),
        rs -> StoredSamples.doubles(rs.getArray(1))).orElse(List.of());
  }

  /**
   * One page of matching results, newest first, after {@code after} (null for the first page). Paging by
   * (measuredAt, id) instead of holding a cursor open keeps no connection busy while a slow client reads.
   */
  public List<StoredResult> results(ResultQuery query, StoredResult after, int pageSize) {
    StringBuilder sql = new StringBuilder("SELECT id, measured_at, result_json FROM results WHERE 1 = 1");
    List<Object> args = new ArrayList<>();
    and(sql, args, "sweep_id = ?", query.sweepId());
    and(sql, args, "device_id = ?", query.deviceId());
    and(sql, args, "kernel = ?", query.kernel());
    and(sql, args, "model = ?", query.model());
    and(sql, args, "params = ?", query.params());
    and(sql, args, "measured_at >= ?", timestamp(query.from()));
    and(sql, args, "measured_at < ?", timestamp(query.to()));
    if (after != null) {
      // A row comparison, not an OR: PostgreSQL turns it into an index range, so page n costs what page 1 does.
      sql.append(" AND (measured_at, id) < (?, ?)");
      args.add(timestamp(after.measuredAt()));
      args.add(after.id());
    }
    sql.append(" ORDER BY measured_at DESC, id DESC LIMIT ?");
    args.add(pageSize);
    // The page is chosen on results alone (its indexes), then joined to its samples.
    sql.insert(0, "SELECT r.id, r.measured_at, r.result_json, " + StoredSamples.COLUMN + " FROM (")
        .append(") r").append(StoredSamples.JOIN).append(" ORDER BY r.measured_at DESC, r.id DESC");
    return db.list(sql.toString(), s -> {
      for (int i = 0; i < args.size(); i++) {
        s.setObject(i + 1, args.get(i));
      }
    }, rs -> new StoredResult(rs.getObject(1, UUID.class), instant(rs, 2),
        StoredSamples.text(rs.getBytes(3), rs.getArray(4))));
  }

  /** Adds {@code condition} with its one parameter when the filter is given (not null). */
  private static void and(StringBuilder sql, List<Object> args, String condition, Object value) {
    if (value != null) {
      sql.append(" AND ").append(condition);
      args.add(value);
    }
  }

  /** The paging key of one stored result, for {@code ?after=<id>}. */
  public Optional<StoredResult> resultKey(UUID id) {
    return db.first("SELECT id, measured_at FROM results WHERE id = ?", s -> s.setObject(1, id),
        rs -> new StoredResult(rs.getObject(1, UUID.class), instant(rs, 2), null));
  }

  /** How many results are stored in all. */
  public long resultCount() {
    return db.first("SELECT COUNT(*) FROM results", Database.Binder.NONE, rs -> rs.getLong(1)).orElseThrow();
  }

  /**
   * One valid result of a device's newest run that timed {@code memcpyKernel}: what the Prometheus gauges need to
   * stand again after a restart. {@code run} is the run's id, or {@code sweep:ID} for results filed under none.
   */
  public record RunFigure(String deviceId, String run, String kernel, double bandwidth, Instant measuredAt) {}

  /**
   * The valid results of each device's newest run that timed {@code memcpyKernel} (the run whose ceiling the
   * gauges can say), among results measured since {@code since}: columns only, no result is decoded.
   */
  public List<RunFigure> newestRunFigures(String memcpyKernel, Instant since) {
    return db.list("SELECT r.device_id, COALESCE(r.run_id, 'sweep:' || r.sweep_id), r.kernel, r.bandwidth,"
        + " r.measured_at FROM results r JOIN (SELECT DISTINCT ON (device_id) device_id, run_id, sweep_id"
        + " FROM results WHERE kernel = ? AND valid AND bandwidth IS NOT NULL AND measured_at >= ?"
        + " ORDER BY device_id, measured_at DESC) n ON r.device_id = n.device_id"
        + " AND r.run_id IS NOT DISTINCT FROM n.run_id AND r.sweep_id IS NOT DISTINCT FROM n.sweep_id"
        + " WHERE r.valid AND r.bandwidth IS NOT NULL AND r.measured_at >= ?", s -> {
          s.setString(1, memcpyKernel);
          s.setObject(2, Database.timestamp(since));
          s.setObject(3, Database.timestamp(since));
        }, rs -> new RunFigure(rs.getString(1), rs.getString(2), rs.getString(3), rs.getDouble(4), instant(rs, 5)));
  }
}
