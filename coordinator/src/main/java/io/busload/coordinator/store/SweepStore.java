package io.busload.coordinator.store;

import static io.busload.coordinator.store.Database.instant;
import static io.busload.coordinator.store.Database.timestamp;

import com.fasterxml.jackson.core.type.TypeReference;
import io.busload.protocol.RunStatus;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Function;

/**
 * Sweeps and their runs: a sweep is stored with its runs in one transaction and read back with them, and each run
 * moves through its states as its agent and the coordinator report on it.
 */
public final class SweepStore {
  private static final TypeReference<Map<String, String>> OPTIONS = new TypeReference<>() {};
  private static final String NOT_JSON = "sweep options are not JSON";
  private static final String RUN_COLUMNS = "id, sweep_id, device_id, agent_id, state, completed, total, message";

  private final Database db;

  public SweepStore(Database db) {
    this.db = db;
  }

  /** Stores a new sweep with one QUEUED run per target, in the targets' order. */
  public Sweep createSweep(String suite, Map<String, String> options, List<RunTarget> targets, Instant now) {
    return db.inTransaction(c -> insertSweep(c, suite, options, targets, now, null, null, false));
  }

  /** A sweep and its QUEUED runs within the caller's transaction; {@code scheduleId} null unless a schedule fired it. */
  static Sweep insertSweep(Connection c, String suite, Map<String, String> options, List<RunTarget> targets, Instant now,
      String scheduleId, Instant scheduledFor, boolean late) throws SQLException {
    String sweepId = UUID.randomUUID().toString();
    Database.update(c, "INSERT INTO sweeps (id, suite, options_json, created_at, schedule_id, scheduled_for, late)"
        + " VALUES (?, ?, ?, ?, ?, ?, ?)", s -> {
          s.setString(1, sweepId);
          s.setString(2, suite);
          s.setString(3, Database.json(new TreeMap<>(options)));
          s.setObject(4, timestamp(now));
          s.setString(5, scheduleId);
          s.setObject(6, timestamp(scheduledFor));
          s.setBoolean(7, late);
        });
    List<Run> runs = new ArrayList<>();
    try (PreparedStatement s = c.prepareStatement(
        "INSERT INTO runs (id, sweep_id, position, device_id, agent_id, state, completed, total, message,"
            + " created_at, updated_at, slurm_partition) VALUES (?, ?, ?, ?, ?, ?, 0, ?, NULL, ?, ?, ?)")) {
      int position = 0;
      for (RunTarget target : targets) {
        Run run = new Run(UUID.randomUUID().toString(), sweepId, target.deviceId(), target.agentId(),
            RunState.QUEUED, 0, target.total(), null);
        s.setString(1, run.runId());
        s.setString(2, sweepId);
        s.setInt(3, position++);
        s.setString(4, run.deviceId());
        s.setString(5, run.agentId());
        s.setString(6, run.state().name());
        s.setInt(7, run.total());
        s.setObject(8, timestamp(now));
        s.setObject(9, timestamp(now));
        s.setString(10, target.slurmPartition());
        s.addBatch();
        runs.add(run);
      }
      s.executeBatch();
    }
    return new Sweep(sweepId, suite, options, now, runs);
  }

  public Optional<Sweep> sweep(String id) {
    List<Sweep> found = db.inTransaction(c -> readSweeps(c,
        "SELECT id, suite, options_json, created_at FROM sweeps WHERE id = ?", s -> s.setString(1, id)));
    return found.stream().findFirst();
  }

  /** The newest sweeps first. */
  public List<Sweep> sweeps(int limit) {
    return db.inTransaction(c -> readSweeps(c,
        "SELECT id, suite, options_json, created_at FROM sweeps ORDER BY created_at DESC, id DESC LIMIT ?",
        s -> s.setInt(1, limit)));
  }

  private static List<Sweep> readSweeps(Connection c, String sql, Database.Binder binder) throws SQLException {
    record Head(String id, String suite, Map<String, String> options, Instant createdAt) {}
    List<Head> heads = Database.list(c, sql, binder, rs -> new Head(rs.getString(1), rs.getString(2),
        Database.json(rs.getString(3), OPTIONS, NOT_JSON), instant(rs, 4)));
    if (heads.isEmpty()) {
      return List.of();
    }
    Map<String, List<Run>> runs = new LinkedHashMap<>();
    String placeholders = String.join(", ", Collections.nCopies(heads.size(), "?"));
    for (Run run : Database.list(c, "SELECT " + RUN_COLUMNS + " FROM runs WHERE sweep_id IN (" + placeholders
        + ") ORDER BY sweep_id, position", s -> {
          for (int i = 0; i < heads.size(); i++) {
            s.setString(i + 1, heads.get(i).id());
          }
        }, SweepStore::run)) {
      runs.computeIfAbsent(run.sweepId(), k -> new ArrayList<>()).add(run);
    }
    return heads.stream()
        .map(h -> new Sweep(h.id(), h.suite(), h.options(), h.createdAt(), runs.getOrDefault(h.id(), List.of())))
        .toList();
  }

  /** Runs waiting in every device's queue, for the queue-depth gauge. */
  public long queuedRunCount() {
    return db.first("SELECT COUNT(*) FROM runs WHERE state = ?", s -> s.setString(1, RunState.QUEUED.name()),
        rs -> rs.getLong(1)).orElseThrow();
  }

  /** One run by id. */
  public Optional<Run> run(String runId) {
    return db.first("SELECT " + RUN_COLUMNS + " FROM runs WHERE id = ?", s -> s.setString(1, runId), SweepStore::run);
  }

  /** Runs newest first, optionally of one device or in one state. */
  public List<Run> runs(String deviceId, RunState state, int limit) {
    return db.list("SELECT " + RUN_COLUMNS + " FROM runs WHERE (? IS NULL OR device_id = ?)"
        + " AND (? IS NULL OR state = ?) ORDER BY created_at DESC, id DESC LIMIT ?", s -> {
          String stateName = state == null ? null : state.name();
          Database.strings(s, deviceId, deviceId, stateName, stateName);
          s.setInt(5, limit);
        }, SweepStore::run);
  }

  /** The device's oldest queued run, if any: runs start in the order they were asked for. */
  public Optional<QueuedRun> nextQueuedRun(String deviceId) {
    return Optional.ofNullable(nextQueuedRuns(List.of(deviceId)).get(deviceId));
  }

  /**
   * The next queued run of each of {@code deviceIds} that has one, in {@link #nextQueuedRun}'s order. One query
   * per batch of devices, not one per device: a sweep to 8,000 devices would ask the store 8,000 times, one worker
   * task each, queued behind the results and statuses the first devices are already sending.
   */
  public Map<String, QueuedRun> nextQueuedRuns(java.util.Collection<String> deviceIds) {
    if (deviceIds.isEmpty()) {
      return Map.of();
    }
    List<QueuedRun> runs = db.list("SELECT DISTINCT ON (r.device_id) r.id, r.sweep_id, r.device_id, r.agent_id,"
        + " s.suite, s.options_json FROM runs r JOIN sweeps s ON s.id = r.sweep_id"
        + " WHERE r.device_id = ANY(?) AND r.state = ? ORDER BY r.device_id, r.created_at, r.sweep_id, r.position",
        s -> {
          s.setArray(1, s.getConnection().createArrayOf("text", deviceIds.toArray()));
          s.setString(2, RunState.QUEUED.name());
        }, SweepStore::queuedRun);
    Map<String, QueuedRun> byDevice = new LinkedHashMap<>();
    runs.forEach(run -> byDevice.put(run.deviceId(), run));
    return byDevice;
  }

  private static QueuedRun queuedRun(ResultSet rs) throws SQLException {
    return new QueuedRun(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
        Database.json(rs.getString(6), OPTIONS, NOT_JSON));
  }

  /** A Slurm node with runs queued for it, and the partition they were asked through. */
  public record SlurmQueue(String node, String partition, List<String> deviceIds) {}

  /**
   * The Slurm nodes that have QUEUED runs, each with the partition of its oldest such run and the devices those runs
   * are queued on (a job's agent serves them all).
   */
  public List<SlurmQueue> queuedSlurmNodes() {
    record Queued(String node, String partition, String device) {}
    List<Queued> rows = db.list("SELECT agent_id, slurm_partition, device_id FROM runs WHERE state = ?"
        + " AND slurm_partition IS NOT NULL ORDER BY created_at, sweep_id, position",
        s -> s.setString(1, RunState.QUEUED.name()), rs -> new Queued(rs.getString(1), rs.getString(2), rs.getString(3)));
    Map<String, SlurmQueue> byNode = new LinkedHashMap<>();
    for (Queued row : rows) {
      SlurmQueue queue = byNode.computeIfAbsent(row.node(),
          n -> new SlurmQueue(n, row.partition(), new ArrayList<>()));
      if (!queue.deviceIds().contains(row.device())) {
        queue.deviceIds().add(row.device());
      }
    }
    return byNode.values().stream()
        .map(q -> new SlurmQueue(q.node(), q.partition(), List.copyOf(q.deviceIds()))).toList();
  }

  /** Runs an agent accepted and has not finished: after a restart their devices are still busy. */
  public List<Run> activeRuns() {
    return db.list("SELECT " + RUN_COLUMNS + " FROM runs WHERE state = ? ORDER BY created_at",
        s -> s.setString(1, RunState.RUNNING.name()), SweepStore::run);
  }

  /** An agent accepted the run: see {@link RunState#accepted()}. */
  public void markAccepted(String runId, Instant now) {
    move(runId, now, run -> run.state().accepted().map(next -> run.moved(next, run.completed(), run.total(),
        run.message())));
  }

  /** Ends a run the coordinator gave up on (refused by its agent, lost by it): see {@link RunState#endedAs}. */
  public void endRun(String runId, RunState end, String message, Instant now) {
    RunState.requireFinished(end);
    move(runId, now, run -> run.state().endedAs(end).map(next -> run.moved(next, run.completed(), run.total(),
        message)));
  }

  /**
   * Records an agent's report on a run (see {@link RunState#reported}) and returns the run as it now stands, or
   * empty for an unknown run. A report without a total (0) keeps the one stored.
   */
  public Optional<Run> recordStatus(RunStatus status, Instant now) {
    return move(status.runId(), now, run -> !assignedTo(run, status.agentId(), status.deviceId()) ? Optional.empty()
        : run.state().reported(status.state()).map(next -> run.moved(next, status.completed(),
            status.total() > 0 ? status.total() : run.total(), status.message())));
  }

  /**
   * Whether the coordinator gave {@code run} to {@code agentId} on {@code deviceId}: only then does that agent's
   * word on it count. A report from anyone else leaves the run as it is ({@link #recordStatus} returns it
   * unchanged, and the caller, seeing it is not the sender's, refuses the report).
   */
  public static boolean assignedTo(Run run, String agentId, String deviceId) {
    return agentId != null && agentId.equals(run.agentId()) && run.deviceId().equals(deviceId);
  }

  /** The stored runs among {@code runIds}, by id; an unknown id is absent. */
  public Map<String, Run> runs(java.util.Collection<String> runIds) {
    if (runIds.isEmpty()) {
      return Map.of();
    }
    Map<String, Run> runs = new java.util.HashMap<>();
    for (Run run : db.inTransaction(c -> Database.list(c, "SELECT " + RUN_COLUMNS + " FROM runs WHERE id = ANY(?)",
        s -> s.setArray(1, c.createArrayOf("text", runIds.toArray())), SweepStore::run))) {
      runs.put(run.runId(), run);
    }
    return runs;
  }

  /** Which of {@code sweepIds} are stored sweeps. */
  public java.util.Set<String> existingSweeps(java.util.Collection<String> sweepIds) {
    if (sweepIds.isEmpty()) {
      return java.util.Set.of();
    }
    return new java.util.HashSet<>(db.inTransaction(c -> Database.list(c, "SELECT id FROM sweeps WHERE id = ANY(?)",
        s -> s.setArray(1, c.createArrayOf("text", sweepIds.toArray())), rs -> rs.getString(1))));
  }

  /**
   * Moves one run where {@code step} says (empty: it stays as it is, progress included), its row locked until the
   * commit, so that two reports, or two coordinators, cannot both move it from the state they read. Returns the run
   * as it now stands, or empty for an unknown run.
   */
  private Optional<Run> move(String runId, Instant now, Function<Run, Optional<Run>> step) {
    return db.inTransaction(c -> {
      Optional<Run> current = Database.first(c, "SELECT " + RUN_COLUMNS + " FROM runs WHERE id = ? FOR UPDATE",
          s -> s.setString(1, runId), SweepStore::run);
      Optional<Run> moved = current.flatMap(step);
      if (moved.isEmpty()) {
        return current;
      }
      Run run = moved.get();
      Database.update(c, "UPDATE runs SET state = ?, completed = ?, total = ?, message = ?, updated_at = ?"
          + " WHERE id = ?", s -> {
            s.setString(1, run.state().name());
            s.setInt(2, run.completed());
            s.setInt(3, run.total());
            s.setString(4, run.message());
            s.setObject(5, timestamp(now));
            s.setString(6, runId);
          });
      return moved;
    });
  }

  private static Run run(ResultSet rs) throws SQLException {
    return new Run(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
        RunState.valueOf(rs.getString(5)), rs.getInt(6), rs.getInt(7), rs.getString(8));
  }
}
