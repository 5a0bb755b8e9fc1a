package io.busload.coordinator.store;

import com.fasterxml.jackson.core.type.TypeReference;
import io.busload.analysis.health.HealthReason;
import io.busload.analysis.health.HealthState;
import io.busload.analysis.health.HealthVerdict;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Each device's newest health verdict ({@code device_health}), and the results it is judged from. Storing a verdict
 * reads the one before it under a row lock, so a change of state is seen once however many results follow it.
 */
public final class HealthStore {
  private static final TypeReference<List<HealthReason>> REASONS = new TypeReference<>() {};
  private static final TypeReference<List<String>> STRINGS = new TypeReference<>() {};

  private final Database db;

  public HealthStore(Database db) {
    this.db = db;
  }

  /**
   * A device's stored verdict.
   *
   * @param since when the device entered this state
   * @param judgedAt when it was last judged (its newest run with health read)
   */
  public record DeviceHealth(String deviceId, String model, HealthState state, List<HealthReason> reasons,
      List<String> notRead, String runId, UUID resultId, Instant judgedAt, Instant since) {}

  /**
   * What storing a verdict changed.
   *
   * @param before the state stored before; null when the device had never been judged
   * @param now the verdict as stored
   */
  public record Stored(HealthState before, DeviceHealth now) {
    /** Whether the state differs from the one stored before (a first verdict is a change unless HEALTHY). */
    public boolean changed() {
      return before == null ? now.state() != HealthState.HEALTHY : before != now.state();
    }
  }

  /** Stores {@code verdict} for the device; {@code since} stays unless the state changed. */
  public Stored store(String deviceId, String model, HealthVerdict verdict, String runId, UUID resultId,
      Instant judgedAt) {
    return db.inTransaction(c -> {
      Optional<DeviceHealth> was = Database.first(c, SELECT + " WHERE device_id = ? FOR UPDATE",
          s -> s.setString(1, deviceId), HealthStore::row);
      HealthState before = was.map(DeviceHealth::state).orElse(null);
      Instant since = was.isPresent() && before == verdict.state() ? was.get().since() : judgedAt;
      DeviceHealth now = new DeviceHealth(deviceId, model, verdict.state(), verdict.reasons(), verdict.notRead(),
          runId, resultId, judgedAt, since);
      Database.update(c, "INSERT INTO device_health (device_id, model, state, reasons, not_read, run_id, result_id,"
          + " judged_at, since) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (device_id) DO UPDATE SET"
          + " model = EXCLUDED.model, state = EXCLUDED.state, reasons = EXCLUDED.reasons, not_read = EXCLUDED.not_read,"
          + " run_id = EXCLUDED.run_id, result_id = EXCLUDED.result_id, judged_at = EXCLUDED.judged_at,"
          + " since = EXCLUDED.since", s -> Database.values(s, deviceId, model, verdict.state().name(),
              Database.json(verdict.reasons()), Database.json(verdict.notRead()), runId, resultId,
              Database.timestamp(judgedAt), Database.timestamp(since)));
      return new Stored(before, now);
    });
  }

  /** The device's stored verdict; empty when it has never been judged. */
  public Optional<DeviceHealth> device(String deviceId) {
    return db.first(SELECT + " WHERE device_id = ?", s -> s.setString(1, deviceId), HealthStore::row);
  }

  /** Every judged device's verdict, by device id. */
  public List<DeviceHealth> devices() {
    return db.list(SELECT + " ORDER BY device_id", s -> {}, HealthStore::row);
  }

  /** Every result of one device in one sweep, oldest first: the run a verdict is judged on. */
  public List<KernelResult> runResults(String sweepId, String deviceId) {
    return db.list("SELECT result_json FROM results WHERE sweep_id = ? AND device_id = ? ORDER BY measured_at",
        s -> Database.strings(s, sweepId, deviceId),
        rs -> JsonCodec.fromJson(ResultJson.bytes(rs.getBytes(1)), KernelResult.class));
  }

  /** Each device of {@code model}'s newest valid result of {@code kernel} (one per device). */
  public List<KernelResult> newestOfModel(String model, String kernel) {
    return db.list("SELECT DISTINCT ON (device_id) result_json FROM results WHERE valid AND model = ? AND kernel = ?"
        + " ORDER BY device_id, measured_at DESC", s -> Database.strings(s, model, kernel),
        rs -> JsonCodec.fromJson(ResultJson.bytes(rs.getBytes(1)), KernelResult.class));
  }

  private static final String SELECT = "SELECT device_id, model, state, reasons, not_read, run_id, result_id,"
      + " judged_at, since FROM device_health";

  private static DeviceHealth row(ResultSet rs) throws SQLException {
    String notJson = "device_health of " + rs.getString(1) + " is not JSON";
    return new DeviceHealth(rs.getString(1), rs.getString(2), HealthState.valueOf(rs.getString(3)),
        Database.json(rs.getString(4), REASONS, notJson), Database.json(rs.getString(5), STRINGS, notJson),
        rs.getString(6), rs.getObject(7, UUID.class), Database.instant(rs, 8), Database.instant(rs, 9));
  }
}
