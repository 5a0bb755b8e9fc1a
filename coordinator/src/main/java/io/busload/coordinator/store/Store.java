package io.busload.coordinator.store;

import com.fasterxml.jackson.core.type.TypeReference;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.busload.protocol.AgentHello;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import io.busload.protocol.RunStatus;
import io.vertx.core.Context;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Set;
import org.flywaydb.core.Flyway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * JDBC access to the coordinator's PostgreSQL database. Every method blocks; call them from worker threads only.
 *
 * <p>Writes that belong together (a sweep and its runs, a result and its samples, an agent and its devices)
 * commit in one transaction, so an ack sent after a method returns means the data is on disk.
 */
public final class Store implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Store.class);
  private static final TypeReference<Map<String, String>> OPTIONS = new TypeReference<>() {};
  private static final String RUN_COLUMNS = "id, sweep_id, device_id, agent_id, state, completed, total, message";

  private final HikariDataSource pool;
  private final EmbeddedDatabase embedded;

  private Store(HikariDataSource pool, EmbeddedDatabase embedded) {
    this.pool = pool;
    this.embedded = embedded;
  }

  /** The local default: an embedded PostgreSQL kept in {@code dataDir}, started here and stopped by {@link #close()}. */
  public static Store open(Path dataDir) {
    return open(DatabaseSettings.EMBEDDED, dataDir);
  }

  /**
   * Connects to the database (starting the embedded one in {@code dataDir} when the settings say so) and brings
   * its schema up to date with Flyway.
   */
  public static Store open(DatabaseSettings database, Path dataDir) {
    requireWorker();
    EmbeddedDatabase embedded = null;
    DatabaseSettings target = database;
    if (database.embedded()) {
      try {
        Files.createDirectories(dataDir);
      } catch (java.io.IOException e) {
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
    HikariDataSource pool = null;
    try {
      pool = new HikariDataSource(config);
      var migration = Flyway.configure().dataSource(pool).locations("classpath:db/migration").load().migrate();
      LOG.info("store on {}: schema version {} ({} migrations applied now)", database.embedded()
          ? "embedded PostgreSQL in " + dataDir : database, migration.targetSchemaVersion, migration.migrationsExecuted);
    } catch (RuntimeException e) {
      if (pool != null) {
        pool.close();
      }
      if (embedded != null) {
        embedded.close();
      }
      throw e;
    }
    return new Store(pool, embedded);
  }

  @Override
  public void close() {
    pool.close();
    if (embedded != null) {
      embedded.close();
    }
  }

  // ---- agents and devices

  /** Remembers an agent and its devices as its hello describes them. */
  public void saveAgent(AgentHello hello, Instant seenAt) {
    inTransaction(c -> {
      try (PreparedStatement update = c.prepareStatement(
          "UPDATE agents SET host = ?, agent_version = ?, fatbin_hash = ?, started_at = ?, last_seen = ?, labels = ?"
              + " WHERE id = ?")) {
        update.setString(1, hello.host());
        update.setString(2, hello.agentVersion());
        update.setString(3, hello.fatbinHash());
        update.setObject(4, timestamp(hello.startedAt()));
        update.setObject(5, timestamp(seenAt));
        update.setArray(6, c.createArrayOf("text", hello.labels().toArray()));
        update.setString(7, hello.agentId());
        if (update.executeUpdate() == 0) {
          try (PreparedStatement insert = c.prepareStatement("INSERT INTO agents (host, agent_version, fatbin_hash,"
              + " started_at, last_seen, labels, id) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
            insert.setString(1, hello.host());
            insert.setString(2, hello.agentVersion());
            insert.setString(3, hello.fatbinHash());
            insert.setObject(4, timestamp(hello.startedAt()));
            insert.setObject(5, timestamp(seenAt));
            insert.setArray(6, c.createArrayOf("text", hello.labels().toArray()));
            insert.setString(7, hello.agentId());
            insert.executeUpdate();
          }
        }
      }
      for (DeviceInfo device : hello.devices()) {
        saveDevice(c, hello.agentId(), device, seenAt);
      }
      return null;
    });
  }

  private static void saveDevice(Connection c, String agentId, DeviceInfo device, Instant seenAt) throws SQLException {
    String json = new String(JsonCodec.toJson(device), StandardCharsets.UTF_8);
    try (PreparedStatement update = c.prepareStatement(
        "UPDATE devices SET agent_id = ?, fingerprint = ?, kind = ?, name = ?, info_json = ?, last_seen = ? WHERE id = ?")) {
      bindDevice(update, agentId, device, json, seenAt);
      if (update.executeUpdate() == 0) {
        try (PreparedStatement insert = c.prepareStatement(
            "INSERT INTO devices (agent_id, fingerprint, kind, name, info_json, last_seen, id) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
          bindDevice(insert, agentId, device, json, seenAt);
          insert.executeUpdate();
        }
      }
    }
  }

  private static void bindDevice(PreparedStatement s, String agentId, DeviceInfo device, String json, Instant seenAt)
      throws SQLException {
    s.setString(1, agentId);
    s.setString(2, device.fingerprint());
    s.setString(3, device.kind());
    s.setString(4, device.name());
    s.setString(5, json);
    s.setObject(6, timestamp(seenAt));
    s.setString(7, device.id());
  }

  /** Records when an agent was last heard from, so that a restarted coordinator can show it. */
  public void touchAgent(String agentId, Instant lastSeen) {
    touchAgents(Map.of(agentId, lastSeen));
  }

  /**
   * Records when each agent was last heard from, in one statement; a time older than the stored one is ignored,
   * so two coordinators (or a late write) never move it back.
   */
  public void touchAgents(Map<String, Instant> lastSeen) {
    if (lastSeen.isEmpty()) {
      return;
    }
    inTransaction(c -> {
      // Instants travel as ISO-8601 text (UTC, 'Z'), which PostgreSQL reads as timestamptz exactly.
      try (PreparedStatement s = c.prepareStatement("UPDATE agents a SET last_seen = v.seen::timestamptz"
          + " FROM unnest(?::text[], ?::text[]) AS v(id, seen)"
          + " WHERE a.id = v.id AND (a.last_seen IS NULL OR a.last_seen < v.seen::timestamptz)")) {
        List<String> ids = List.copyOf(lastSeen.keySet());
        s.setArray(1, c.createArrayOf("text", ids.toArray()));
        s.setArray(2, c.createArrayOf("text", ids.stream().map(id -> lastSeen.get(id).toString()).toArray()));
        s.executeUpdate();
      }
      return null;
    });
  }

  /** Every agent ever seen, with its devices, ordered by id. */
  public List<KnownAgent> agents() {
    return inTransaction(c -> {
      Map<String, List<DeviceInfo>> devices = new LinkedHashMap<>();
      try (PreparedStatement s = c.prepareStatement("SELECT agent_id, info_json FROM devices ORDER BY id");
          ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          devices.computeIfAbsent(rs.getString(1), k -> new ArrayList<>())
              .add(JsonCodec.fromJson(rs.getString(2).getBytes(StandardCharsets.UTF_8), DeviceInfo.class));
        }
      }
      List<KnownAgent> agents = new ArrayList<>();
      try (PreparedStatement s = c.prepareStatement(
          "SELECT id, host, agent_version, fatbin_hash, last_seen FROM agents ORDER BY id");
          ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          agents.add(new KnownAgent(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
              instant(rs, 5), devices.getOrDefault(rs.getString(1), List.of())));
        }
      }
      return agents;
    });
  }

  // ---- sweeps and runs

  /** Stores a new sweep with one QUEUED run per target, in the targets' order. */
  public Sweep createSweep(String suite, Map<String, String> options, List<RunTarget> targets, Instant now) {
    return inTransaction(c -> insertSweep(c, suite, options, targets, now, null, null, false));
  }

  /** A sweep and its QUEUED runs within the caller's transaction; {@code scheduleId} null unless a schedule fired it. */
  static Sweep insertSweep(Connection c, String suite, Map<String, String> options, List<RunTarget> targets, Instant now,
      String scheduleId, Instant scheduledFor, boolean late) throws SQLException {
    String sweepId = UUID.randomUUID().toString();
    try (PreparedStatement s = c.prepareStatement("INSERT INTO sweeps (id, suite, options_json, created_at,"
        + " schedule_id, scheduled_for, late) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
      s.setString(1, sweepId);
      s.setString(2, suite);
      s.setString(3, new String(JsonCodec.toJson(new java.util.TreeMap<>(options)), StandardCharsets.UTF_8));
      s.setObject(4, timestamp(now));
      s.setString(5, scheduleId);
      s.setObject(6, timestamp(scheduledFor));
      s.setBoolean(7, late);
      s.executeUpdate();
    }
    List<Run> runs = new ArrayList<>();
    try (PreparedStatement s = c.prepareStatement(
        "INSERT INTO runs (id, sweep_id, position, device_id, agent_id, state, completed, total, message,"
            + " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 0, ?, NULL, ?, ?)")) {
      int position = 0;
      for (RunTarget target : targets) {
        Run run = new Run(UUID.randomUUID().toString(), sweepId, target.deviceId(), target.agentId(),
            RunStatus.State.QUEUED, 0, target.total(), null);
        s.setString(1, run.runId());
        s.setString(2, sweepId);
        s.setInt(3, position++);
        s.setString(4, run.deviceId());
        s.setString(5, run.agentId());
        s.setString(6, run.state().name());
        s.setInt(7, run.total());
        s.setObject(8, timestamp(now));
        s.setObject(9, timestamp(now));
        s.addBatch();
        runs.add(run);
      }
      s.executeBatch();
    }
    return new Sweep(sweepId, suite, options, now, runs);
  }

  /** Runs waiting in every device's queue, for the queue-depth gauge. */
  public long queuedRunCount() {
    return inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement("SELECT COUNT(*) FROM runs WHERE state = 'QUEUED'");
          ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    });
  }

  /** Every stored device with its agent, host and the host's labels, in id order. */
  public List<StoredDevice> devices() {
    return inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement("SELECT d.id, d.agent_id, a.host, d.name, d.fingerprint, d.info_json,"
          + " d.last_seen, a.labels FROM devices d JOIN agents a ON a.id = d.agent_id ORDER BY d.id");
          ResultSet rs = s.executeQuery()) {
        List<StoredDevice> devices = new ArrayList<>();
        while (rs.next()) {
          devices.add(new StoredDevice(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
              rs.getString(5), JsonCodec.fromJson(rs.getString(6).getBytes(StandardCharsets.UTF_8), DeviceInfo.class),
              instant(rs, 7), List.of((String[]) rs.getArray(8).getArray())));
        }
        return devices;
      }
    });
  }

  /** One run by id. */
  public Optional<Run> run(String runId) {
    return inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement("SELECT " + RUN_COLUMNS + " FROM runs WHERE id = ?")) {
        s.setString(1, runId);
        try (ResultSet rs = s.executeQuery()) {
          return rs.next() ? Optional.of(run(rs)) : Optional.<Run>empty();
        }
      }
    });
  }

  /** Runs newest first, optionally of one device or in one state. */
  public List<Run> runs(String deviceId, String state, int limit) {
    return inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement("SELECT " + RUN_COLUMNS + " FROM runs WHERE (? IS NULL OR device_id = ?)"
          + " AND (? IS NULL OR state = ?) ORDER BY created_at DESC, id DESC LIMIT ?")) {
        s.setString(1, deviceId);
        s.setString(2, deviceId);
        s.setString(3, state);
        s.setString(4, state);
        s.setInt(5, limit);
        try (ResultSet rs = s.executeQuery()) {
          List<Run> runs = new ArrayList<>();
          while (rs.next()) {
            runs.add(run(rs));
          }
          return runs;
        }
      }
    });
  }

  public Optional<Sweep> sweep(String id) {
    List<Sweep> found = inTransaction(c -> readSweeps(c, "SELECT id, suite, options_json, created_at FROM sweeps WHERE id = ?",
        s -> s.setString(1, id)));
    return found.stream().findFirst();
  }

  /** The newest sweeps first. */
  public List<Sweep> sweeps(int limit) {
    return inTransaction(c -> readSweeps(c,
        "SELECT id, suite, options_json, created_at FROM sweeps ORDER BY created_at DESC, id DESC LIMIT ?",
        s -> s.setInt(1, limit)));
  }

  private static List<Sweep> readSweeps(Connection c, String sql, Binder binder) throws SQLException {
    record Head(String id, String suite, Map<String, String> options, Instant createdAt) {}
    List<Head> heads = new ArrayList<>();
    try (PreparedStatement s = c.prepareStatement(sql)) {
      binder.bind(s);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          Map<String, String> options = JsonCodec.MAPPER.readValue(rs.getString(3), OPTIONS);
          heads.add(new Head(rs.getString(1), rs.getString(2), options, instant(rs, 4)));
        }
      } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
        throw new SQLException("sweep options are not JSON: " + e.getOriginalMessage(), e);
      }
    }
    if (heads.isEmpty()) {
      return List.of();
    }
    Map<String, List<Run>> runs = new LinkedHashMap<>();
    String placeholders = String.join(", ", Collections.nCopies(heads.size(), "?"));
    try (PreparedStatement s = c.prepareStatement("SELECT " + RUN_COLUMNS + " FROM runs WHERE sweep_id IN ("
        + placeholders + ") ORDER BY sweep_id, position")) {
      for (int i = 0; i < heads.size(); i++) {
        s.setString(i + 1, heads.get(i).id());
      }
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          Run run = run(rs);
          runs.computeIfAbsent(run.sweepId(), k -> new ArrayList<>()).add(run);
        }
      }
    }
    return heads.stream()
        .map(h -> new Sweep(h.id(), h.suite(), h.options(), h.createdAt(), runs.getOrDefault(h.id(), List.of())))
        .toList();
  }

  /** The device's oldest queued run, if any: runs start in the order they were asked for. */
  public Optional<QueuedRun> nextQueuedRun(String deviceId) {
    return inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement(
          "SELECT r.id, r.sweep_id, r.device_id, r.agent_id, s.suite, s.options_json FROM runs r"
              + " JOIN sweeps s ON s.id = r.sweep_id WHERE r.device_id = ? AND r.state = 'QUEUED'"
              + " ORDER BY r.created_at, r.sweep_id, r.position LIMIT 1")) {
        s.setString(1, deviceId);
        try (ResultSet rs = s.executeQuery()) {
          if (!rs.next()) {
            return Optional.empty();
          }
          Map<String, String> options = JsonCodec.MAPPER.readValue(rs.getString(6), OPTIONS);
          return Optional.of(new QueuedRun(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
              rs.getString(5), options));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
          throw new SQLException("sweep options are not JSON: " + e.getOriginalMessage(), e);
        }
      }
    });
  }

  /** Runs an agent accepted and has not finished: after a restart their devices are still busy. */
  public List<Run> activeRuns() {
    return inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement(
          "SELECT " + RUN_COLUMNS + " FROM runs WHERE state = 'RUNNING' ORDER BY created_at");
          ResultSet rs = s.executeQuery()) {
        List<Run> runs = new ArrayList<>();
        while (rs.next()) {
          runs.add(run(rs));
        }
        return runs;
      }
    });
  }

  /** An agent accepted the run: QUEUED becomes RUNNING, unless the agent's own status got there first. */
  public void markAccepted(String runId, Instant now) {
    inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement(
          "UPDATE runs SET state = 'RUNNING', updated_at = ? WHERE id = ? AND state = 'QUEUED'")) {
        s.setObject(1, timestamp(now));
        s.setString(2, runId);
        s.executeUpdate();
      }
      return null;
    });
  }

  /** Ends a run the coordinator gave up on (refused by its agent, lost by it); a finished run stays as it is. */
  public void endRun(String runId, RunStatus.State state, String message, Instant now) {
    if (!Run.finished(state)) {
      throw new IllegalArgumentException("not a final state: " + state);
    }
    inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement(
          "UPDATE runs SET state = ?, message = ?, updated_at = ? WHERE id = ? AND state IN ('QUEUED', 'RUNNING')")) {
        s.setString(1, state.name());
        s.setString(2, message);
        s.setObject(3, timestamp(now));
        s.setString(4, runId);
        s.executeUpdate();
      }
      return null;
    });
  }

  /**
   * Records an agent's report on a run and returns the run as it now stands, or empty for an unknown run.
   *
   * <p>DONE and FAILED are final, so a late, retried RUNNING cannot undo them. An agent's QUEUED (the run
   * waits on its worker) does not put the run back in the coordinator's queue, which would dispatch it twice.
   * INTERRUPTED (set when the coordinator lost track of a run) may still turn into DONE or FAILED.
   */
  public Optional<Run> recordStatus(RunStatus status, Instant now) {
    return inTransaction(c -> {
      String sql = switch (status.state()) {
        case QUEUED -> "UPDATE runs SET completed = ?, total = CASE WHEN ? > 0 THEN ? ELSE total END,"
            + " message = ?, updated_at = ? WHERE id = ? AND state IN ('QUEUED', 'RUNNING')";
        case RUNNING -> "UPDATE runs SET completed = ?, total = CASE WHEN ? > 0 THEN ? ELSE total END,"
            + " message = ?, updated_at = ?, state = 'RUNNING' WHERE id = ? AND state IN ('QUEUED', 'RUNNING')";
        case DONE, FAILED, INTERRUPTED -> "UPDATE runs SET completed = ?, total = CASE WHEN ? > 0 THEN ? ELSE total END,"
            + " message = ?, updated_at = ?, state = '" + status.state().name() + "' WHERE id = ?"
            + " AND state NOT IN ('DONE', 'FAILED')";
      };
      try (PreparedStatement s = c.prepareStatement(sql)) {
        s.setInt(1, status.completed());
        s.setInt(2, status.total());
        s.setInt(3, status.total());
        if (status.message() == null) {
          s.setNull(4, Types.VARCHAR);
        } else {
          s.setString(4, status.message());
        }
        s.setObject(5, timestamp(now));
        s.setString(6, status.runId());
        s.executeUpdate();
      }
      try (PreparedStatement s = c.prepareStatement("SELECT " + RUN_COLUMNS + " FROM runs WHERE id = ?")) {
        s.setString(1, status.runId());
        try (ResultSet rs = s.executeQuery()) {
          return rs.next() ? Optional.of(run(rs)) : Optional.<Run>empty();
        }
      }
    });
  }

  private static Run run(ResultSet rs) throws SQLException {
    return new Run(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
        RunStatus.State.valueOf(rs.getString(5)), rs.getInt(6), rs.getInt(7), rs.getString(8));
  }

  // ---- results

  /**
   * Stores a result and its samples unless one with its id is stored already; returns whether it was new.
   * A redelivered result (its ack was lost) is the same measurement, so the first copy wins.
   */
  public boolean upsertResult(KernelResult result, Instant now) {
    return !upsertResults(List.of(result), now).isEmpty();
  }

  /**
   * Stores a batch of results in one transaction and one statement, returning the ids that were new. Duplicates,
   * in the batch or already stored, are skipped: storing is an upsert by the agent's id (ARCHITECTURE.md), so every
   * result of the batch may be acked once this returns. Each result's JSON is encoded here.
   */
  public Set<UUID> upsertResults(List<KernelResult> results, Instant now) {
    List<Incoming> incoming = new ArrayList<>(results.size());
    for (KernelResult r : results) {
      incoming.add(new Incoming(r, null));
    }
    return upsertIncoming(incoming, now);
  }

  /**
   * A result to store and the UTF-8 JSON to keep as its {@code result_json}: what the agent sent, when the intake
   * found it storable as it is, or null to encode the record here.
   */
  public record Incoming(KernelResult result, byte[] json) {}

  private static final String INSERT_RESULTS = "INSERT INTO results (id, sweep_id, run_id, agent_id, device_id,"
      + " fingerprint, suite, kernel, params, valid, median_seconds, min_seconds, max_seconds, relative_spread,"
      + " launches_per_sample, bytes, bandwidth, measured_at, stored_at, model, theoretical_peak, driver_version,"
      + " agent_version, fatbin_hash, samples, result_json)"
      + " SELECT t.id, t.sweep_id, t.run_id, t.agent_id, t.device_id, t.fingerprint, t.suite, t.kernel, t.params,"
      + " t.valid, t.median_seconds, t.min_seconds, t.max_seconds, t.relative_spread, t.launches_per_sample, t.bytes,"
      + " nullif(t.bandwidth, 'NaN'::float8), t.measured_at::timestamptz, ?, t.model, t.theoretical_peak,"
      + " t.driver_version, t.agent_version, t.fatbin_hash, (?::float8[])[t.first_sample:t.last_sample],"
      + " convert_from(t.result_json, 'UTF8')"
      + " FROM unnest(?::uuid[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[],"
      + " ?::text[], ?::bool[], ?::float8[], ?::float8[], ?::float8[], ?::float8[], ?::int4[], ?::int8[],"
      + " ?::float8[], ?::text[], ?::text[], ?::float8[], ?::text[], ?::text[], ?::text[], ?::int4[], ?::int4[],"
      + " ?::bytea[])"
      + " AS t(id, sweep_id, run_id, agent_id, device_id, fingerprint, suite, kernel, params, valid,"
      + " median_seconds, min_seconds, max_seconds, relative_spread, launches_per_sample, bytes, bandwidth,"
      + " measured_at, model, theoretical_peak, driver_version, agent_version, fatbin_hash, first_sample,"
      + " last_sample, result_json)"
      + " ON CONFLICT (id) DO NOTHING RETURNING id";

  /**
   * {@link #upsertResults} for results that may carry their JSON already. Issue 4 (20,000 results/s): numbers go
   * as primitive arrays, which PgJDBC sends in binary, so neither side formats or parses them as text; every
   * result's samples go in one array, sliced per row by the server; the JSON goes as bytes, not re-encoded.
   */
  public Set<UUID> upsertIncoming(List<Incoming> results, Instant now) {
    ResultColumns columns = new ResultColumns(results);
    return inTransaction(c -> insertIncoming(c, columns, now));
  }

  /** {@link #upsertIncoming} within the caller's transaction (issue 11: a pushed file is stored in one). */
  static Set<UUID> upsertIncoming(Connection c, List<Incoming> results, Instant now) throws SQLException {
    return insertIncoming(c, new ResultColumns(results), now);
  }

  private static Set<UUID> insertIncoming(Connection c, ResultColumns columns, Instant now) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(INSERT_RESULTS)) {
      s.setObject(1, timestamp(now));
      columns.bind(c, s, 2);
      Set<UUID> inserted = new HashSet<>();
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          inserted.add(rs.getObject(1, UUID.class));
        }
      }
      ResultCounters.insert(c, columns.records, inserted); // profiled results only; same transaction (issue 5)
      return inserted;
    }
  }

  /**
   * One array per column of {@link #INSERT_RESULTS}, filled row by row. Kept apart from the statement so that each
   * method stays small: one long method doing both was compiled by C2 over and over (13 times, 5 s of compiler time
   * in a 10 s ingest on two cores).
   */
  private static final class ResultColumns {
    final List<KernelResult> records;
    final UUID[] ids;
    final String[] sweepIds;
    final String[] runIds;
    final String[] agentIds;
    final String[] deviceIds;
    final String[] fingerprints;
    final String[] suites;
    final String[] kernels;
    final String[] params;
    final boolean[] valid;
    final double[] medians;
    final double[] mins;
    final double[] maxs;
    final double[] spreads;
    final int[] launches;
    final long[] bytes;
    /** NaN stands for "no bandwidth": the intake lets only finite bandwidths through. */
    final double[] bandwidths;
    final String[] measuredAt;
    final String[] models;
    final double[] peaks;
    final String[] drivers;
    final String[] agentVersions;
    final String[] fatbins;
    final int[] firstSample;
    final int[] lastSample;
    final double[] samples;
    final byte[][] json;
    /** A SHA-256 per result was a tenth of the insert's time; a batch holds few devices. */
    private final Map<DeviceInfo, String> fingerprintOf = new HashMap<>();
    private int row;
    private int sample;

    ResultColumns(List<Incoming> results) {
      int n = results.size();
      records = new ArrayList<>(n);
      ids = new UUID[n];
      sweepIds = new String[n];
      runIds = new String[n];
      agentIds = new String[n];
      deviceIds = new String[n];
      fingerprints = new String[n];
      suites = new String[n];
      kernels = new String[n];
      params = new String[n];
      valid = new boolean[n];
      medians = new double[n];
      mins = new double[n];
      maxs = new double[n];
      spreads = new double[n];
      launches = new int[n];
      bytes = new long[n];
      bandwidths = new double[n];
      measuredAt = new String[n];
      models = new String[n];
      peaks = new double[n];
      drivers = new String[n];
      agentVersions = new String[n];
      fatbins = new String[n];
      firstSample = new int[n];
      lastSample = new int[n];
      json = new byte[n][];
      int sampleCount = 0;
      for (Incoming incoming : results) {
        sampleCount += incoming.result().samples().size();
      }
      samples = new double[sampleCount];
      for (Incoming incoming : results) {
        add(incoming.result(), incoming.json());
      }
    }

    private void add(KernelResult r, byte[] given) {
      int i = row++;
      DeviceInfo device = r.device();
      records.add(r);
      ids[i] = r.id();
      sweepIds[i] = r.sweepId();
      runIds[i] = r.runId();
      agentIds[i] = r.agentId();
      deviceIds[i] = device.id();
      fingerprints[i] = fingerprintOf.computeIfAbsent(device, DeviceInfo::fingerprint);
      suites[i] = r.suite();
      kernels[i] = r.kernel();
      params[i] = Params.text(r.params());
      valid[i] = r.valid();
      medians[i] = r.medianSeconds();
      mins[i] = r.minSeconds();
      maxs[i] = r.maxSeconds();
      spreads[i] = r.relativeSpread();
      launches[i] = r.launchesPerSample();
      bytes[i] = r.bytes();
      bandwidths[i] = r.bandwidth() == null ? Double.NaN : r.bandwidth();
      measuredAt[i] = r.measuredAt().toString();
      models[i] = device.name() == null ? device.id() : device.name();
      peaks[i] = device.theoreticalPeakBytesPerSecond();
      drivers[i] = device.driverVersion();
      agentVersions[i] = r.agentVersion();
      fatbins[i] = r.fatbinHash();
      firstSample[i] = sample + 1; // PostgreSQL arrays count from 1; an empty slice [k+1:k] is '{}'
      for (double d : r.samples()) {
        samples[sample++] = d;
      }
      lastSample[i] = sample;
      json[i] = given != null ? given : JsonCodec.toJson(r);
    }

    /** Binds the samples and then every column, from parameter {@code first} on, in {@link #INSERT_RESULTS}' order. */
    void bind(Connection c, PreparedStatement s, int first) throws SQLException {
      int p = first;
      s.setObject(p++, samples);
      s.setArray(p++, c.createArrayOf("uuid", ids));
      p = texts(c, s, p, sweepIds, runIds, agentIds, deviceIds, fingerprints, suites, kernels, params);
      s.setObject(p++, valid);
      s.setObject(p++, medians);
      s.setObject(p++, mins);
      s.setObject(p++, maxs);
      s.setObject(p++, spreads);
      s.setObject(p++, launches);
      s.setObject(p++, bytes);
      s.setObject(p++, bandwidths);
      p = texts(c, s, p, measuredAt, models);
      s.setObject(p++, peaks);
      p = texts(c, s, p, drivers, agentVersions, fatbins);
      s.setObject(p++, firstSample);
      s.setObject(p++, lastSample);
      s.setObject(p, json);
    }

    private static int texts(Connection c, PreparedStatement s, int first, String[]... columns) throws SQLException {
      int p = first;
      for (String[] column : columns) {
        s.setArray(p++, c.createArrayOf("text", column));
      }
      return p;
    }
  }

  /** The samples of one stored result, in measuring order. */
  public List<Double> samples(UUID resultId) {
    return inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement("SELECT samples FROM results WHERE id = ?")) {
        s.setObject(1, resultId);
        try (ResultSet rs = s.executeQuery()) {
          if (!rs.next()) {
            return List.of();
          }
          Double[] values = (Double[]) rs.getArray(1).getArray();
          return List.of(values);
        }
      }
    });
  }

  /**
   * One page of matching results, newest first, after {@code after} (null for the first page). Paging by
   * (measuredAt, id) instead of holding a cursor open keeps no connection busy while a slow client reads.
   */
  public List<StoredResult> results(ResultQuery query, StoredResult after, int pageSize) {
    StringBuilder sql = new StringBuilder("SELECT id, measured_at, result_json FROM results WHERE 1 = 1");
    List<Object> args = new ArrayList<>();
    if (query.sweepId() != null) {
      sql.append(" AND sweep_id = ?");
      args.add(query.sweepId());
    }
    if (query.deviceId() != null) {
      sql.append(" AND device_id = ?");
      args.add(query.deviceId());
    }
    if (query.kernel() != null) {
      sql.append(" AND kernel = ?");
      args.add(query.kernel());
    }
    if (query.model() != null) {
      sql.append(" AND model = ?");
      args.add(query.model());
    }
    if (query.params() != null) {
      sql.append(" AND params = ?");
      args.add(query.params());
    }
    if (query.from() != null) {
      sql.append(" AND measured_at >= ?");
      args.add(timestamp(query.from()));
    }
    if (query.to() != null) {
      sql.append(" AND measured_at < ?");
      args.add(timestamp(query.to()));
    }
    if (after != null) {
      // A row comparison, not an OR: PostgreSQL turns it into an index range, so page n costs what page 1 does.
      sql.append(" AND (measured_at, id) < (?, ?)");
      args.add(timestamp(after.measuredAt()));
      args.add(after.id());
    }
    sql.append(" ORDER BY measured_at DESC, id DESC LIMIT ?");
    args.add(pageSize);
    return inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement(sql.toString())) {
        for (int i = 0; i < args.size(); i++) {
          s.setObject(i + 1, args.get(i));
        }
        try (ResultSet rs = s.executeQuery()) {
          List<StoredResult> page = new ArrayList<>();
          while (rs.next()) {
            page.add(new StoredResult(rs.getObject(1, UUID.class), instant(rs, 2), rs.getString(3)));
          }
          return page;
        }
      }
    });
  }

  /** The paging key of one stored result, for {@code ?after=<id>}. */
  public Optional<StoredResult> resultKey(UUID id) {
    return inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement("SELECT id, measured_at FROM results WHERE id = ?")) {
        s.setObject(1, id);
        try (ResultSet rs = s.executeQuery()) {
          return rs.next() ? Optional.of(new StoredResult(rs.getObject(1, UUID.class), instant(rs, 2), null))
              : Optional.<StoredResult>empty();
        }
      }
    });
  }

  /** How many results are stored in all. */
  public long resultCount() {
    return inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement("SELECT COUNT(*) FROM results"); ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    });
  }

  // ---- plumbing

  @FunctionalInterface
  interface Work<T> {
    T run(Connection c) throws SQLException;
  }

  @FunctionalInterface
  private interface Binder {
    void bind(PreparedStatement s) throws SQLException;
  }

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

  /** A failed database call, unchecked so it can cross {@code executeBlocking}; the SQL state stays in the cause. */
  public static final class StoreException extends RuntimeException {
    StoreException(SQLException cause) {
      super("store: " + cause.getMessage(), cause);
    }
  }
}
