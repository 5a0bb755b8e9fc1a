package io.busload.coordinator.store;

import io.busload.protocol.DeviceInfo;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import io.busload.protocol.RunStatus;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Results pushed from hosts outside the cluster ({@code ./busload push}): a pushed file is stored in one
 * transaction with the sweeps and runs its results are filed under, so that the coordinator never holds half a file
 * and pushed results show in every view that fleet results do.
 */
public final class PushStore {
  private static final String PUSH_COLUMNS = "id, token_name, source_host, source_file, remote_address, format,"
      + " results, stored, pushed_at";

  private final Database db;

  public PushStore(Database db) {
    this.db = db;
  }

  /**
   * One push the coordinator took.
   *
   * @param token the name of the API token it came with
   * @param host the host it came from, as the client named it
   * @param file the file's name, as the client named it
   * @param address the network address it came from
   * @param results how many results the file held
   * @param stored how many of them were new (the rest were stored already, by this push's id or another's)
   */
  public record Push(UUID id, String token, String host, String file, String address, String format, int results,
      int stored, Instant pushedAt) {

    public Push withStored(int count) {
      return new Push(id, token, host, file, address, format, results, count, pushedAt);
    }
  }

  /** A run (and its sweep) that pushed results are filed under; created DONE where it does not exist. */
  public record PushedRun(String runId, String sweepId, String suite, String deviceId, String agentId, int total,
      String message) {}

  /** A device known from pushed results, as it stood in its newest pushed result. */
  public record PushedDevice(String id, String agentId, String host, String model, String fingerprint,
      Instant lastPushed, DeviceInfo info) {}

  /** Compares a result of the file with the stored result of the same id: null when they are the same. */
  @FunctionalInterface
  public interface Difference {
    String between(KernelResult pushed, KernelResult stored);
  }

  /** A result of the file whose id is stored with other contents; thrown inside the transaction, so nothing stays. */
  public static final class Conflict extends RuntimeException {
    private final UUID resultId;

    public Conflict(UUID resultId, String detail) {
      super(detail, null, false, false);
      this.resultId = resultId;
    }

    public UUID resultId() {
      return resultId;
    }
  }

  /**
   * Stores a pushed file, all of it or nothing: the push, the sweeps and runs of {@code runs} that do not exist yet,
   * and every result of {@code results} not stored already; a result stored already must be the same measurement
   * ({@code difference} null), else {@link Conflict} and the whole transaction rolls back. Returns the push as
   * recorded and the ids stored now.
   */
  public Stored store(Push push, List<PushedRun> runs, List<KernelResult> results, Difference difference) {
    List<ResultStore.Incoming> incoming = new ArrayList<>(results.size());
    for (KernelResult r : results) {
      incoming.add(new ResultStore.Incoming(r, null));
    }
    return db.inTransaction(c -> {
      insertPush(c, push);
      insertRuns(c, push, runs);
      Set<UUID> fresh = ResultStore.insertIncoming(c, incoming, push.pushedAt());
      checkPresent(c, results, fresh, difference);
      try (PreparedStatement s = c.prepareStatement("INSERT INTO pushed_results (result_id, push_id)"
          + " SELECT unnest(?::uuid[]), ?")) {
        s.setArray(1, c.createArrayOf("uuid", fresh.toArray()));
        s.setObject(2, push.id());
        s.executeUpdate();
      }
      try (PreparedStatement s = c.prepareStatement("UPDATE pushes SET stored = ? WHERE id = ?")) {
        s.setInt(1, fresh.size());
        s.setObject(2, push.id());
        s.executeUpdate();
      }
      return new Stored(push.withStored(fresh.size()), fresh);
    });
  }

  /** What {@link #store} did. */
  public record Stored(Push push, Set<UUID> fresh) {}

  private static void insertPush(Connection c, Push push) throws SQLException {
    Database.update(c, "INSERT INTO pushes (" + PUSH_COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?)",
        s -> Database.values(s, push.id(), push.token(), push.host(), push.file(), push.address(), push.format(),
            push.results(), Database.timestamp(push.pushedAt())));
  }

  /** Sweeps and runs that exist already (a second push of the same file, a fleet's own run) are left as they are. */
  private static void insertRuns(Connection c, Push push, List<PushedRun> runs) throws SQLException {
    OffsetDateTime pushedAt = Database.timestamp(push.pushedAt());
    Map<String, String> sweeps = new LinkedHashMap<>();
    runs.forEach(r -> sweeps.putIfAbsent(r.sweepId(), r.suite()));
    Database.batch(c, "INSERT INTO sweeps (id, suite, options_json, created_at, push_id)"
        + " VALUES (?, ?, '{}', ?, ?) ON CONFLICT (id) DO NOTHING", sweeps.entrySet(),
        sweep -> new Object[] {sweep.getKey(), sweep.getValue(), pushedAt, push.id()});
    Map<String, Integer> positions = new HashMap<>();
    Database.batch(c, "INSERT INTO runs (id, sweep_id, position, device_id, agent_id, state, completed, total,"
        + " message, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
        runs, run -> new Object[] {run.runId(), run.sweepId(), positions.merge(run.sweepId(), 1, Integer::sum) - 1,
            run.deviceId(), run.agentId(), RunStatus.State.DONE.name(), run.total(), run.total(), run.message(),
            pushedAt, pushedAt});
  }

  /**
   * Every result of the file that was not new must be what is stored under its id. Read after the insert, in the
   * same transaction: a concurrent push of the same id has committed by then (the insert waited for it), so two
   * pushes of different contents under one id cannot both pass.
   */
  private static void checkPresent(Connection c, List<KernelResult> results, Set<UUID> fresh, Difference difference)
      throws SQLException {
    Map<UUID, KernelResult> present = new LinkedHashMap<>();
    for (KernelResult r : results) {
      if (!fresh.contains(r.id())) {
        present.putIfAbsent(r.id(), r);
      }
    }
    if (present.isEmpty()) {
      return;
    }
    Map<UUID, StoredSamples.Stored> stored = new HashMap<>();
    try (PreparedStatement s = c.prepareStatement("SELECT r.id, r.result_json, " + StoredSamples.COLUMN
        + ", " + StoredSamples.AGED + " FROM results r" + StoredSamples.JOIN + " WHERE r.id = ANY(?::uuid[])")) {
      s.setArray(1, c.createArrayOf("uuid", present.keySet().toArray()));
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          stored.put(rs.getObject(1, UUID.class),
              new StoredSamples.Stored(StoredSamples.result(rs.getBytes(2), rs.getArray(3)), rs.getBoolean(4)));
        }
      }
    }
    for (KernelResult pushed : present.values()) {
      KernelResult existing = stored.containsKey(pushed.id())
          ? stored.get(pushed.id()).comparableTo(pushed) : null;
      String different = existing == null ? "stored a moment ago and gone again" : difference.between(pushed, existing);
      if (different != null) {
        throw new Conflict(pushed.id(), different);
      }
    }
  }

  /** The newest pushes first. */
  public List<Push> list(int limit) {
    return db.list("SELECT " + PUSH_COLUMNS + " FROM pushes ORDER BY pushed_at DESC, id DESC LIMIT ?",
        s -> s.setInt(1, limit), PushStore::push);
  }

  public Optional<Push> find(UUID id) {
    return db.first("SELECT " + PUSH_COLUMNS + " FROM pushes WHERE id = ?", s -> s.setObject(1, id), PushStore::push);
  }

  /** The ids of the results {@code pushId} stored, in measuring order. */
  public List<UUID> resultsOf(UUID pushId) {
    return db.list("SELECT r.id FROM pushed_results p JOIN results r ON r.id = p.result_id WHERE p.push_id = ?"
        + " ORDER BY r.measured_at, r.id", s -> s.setObject(1, pushId), rs -> rs.getObject(1, UUID.class));
  }

  /**
   * Every device that pushed results were measured on, as its newest pushed result describes it, in id order. Not
   * fleet members, one row per device id and fingerprint (two hosts of one name push one id: the lent H100
   * and H200 were both "vm"): no agent serves them, so schedules and sweeps never target them
   * ({@code AgentStore#devices} stays the fleet's); views that draw results (Compare) offer them beside the fleet's.
   */
  public List<PushedDevice> devices() {
    String fingerprint = ResultSetups.column("fingerprint");
    return db.list("SELECT DISTINCT ON (r.device_id, " + fingerprint + ") r.device_id, "
        + ResultSetups.column("agent_id") + ", p.source_host, r.model, " + fingerprint + ", p.pushed_at, r.result_json"
        + " FROM pushed_results pr JOIN results r ON r.id = pr.result_id" + ResultSetups.JOIN
        + " JOIN pushes p ON p.id = pr.push_id ORDER BY r.device_id, " + fingerprint
        + ", p.pushed_at DESC, r.measured_at DESC",
        Database.Binder.NONE, rs -> {
          KernelResult newest = JsonCodec.fromJson(ResultJson.bytes(rs.getBytes(7)), KernelResult.class);
          return new PushedDevice(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
              rs.getString(5), Database.instant(rs, 6), newest.device());
        });
  }

  private static Push push(ResultSet rs) throws SQLException {
    return new Push(rs.getObject(1, UUID.class), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
        rs.getString(6), rs.getInt(7), rs.getInt(8), Database.instant(rs, 9));
  }
}
