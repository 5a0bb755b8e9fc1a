package io.busload.coordinator.store;

import com.fasterxml.jackson.core.type.TypeReference;
import io.busload.protocol.Clocks;
import io.busload.protocol.JsonCodec;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** The read side that compares results: across device models, and against a device's own history. */
public final class ComparisonStore {
  /**
   * The device-to-device copy every suite times first (kernels' Catalog): a run with a valid one has a measured
   * ceiling, the best bandwidth of any valid result of that run (agent's report.Ceilings says why memcpy
   * alone was none).
   */
  public static final String MEMCPY_KERNEL = "memcpy-d2d";

  private final Database db;

  public ComparisonStore(Database db) {
    this.db = db;
  }

  /**
   * One device model's latest valid result for a kernel and params, with its two ceilings.
   *
   * @param ceilingBandwidth the measured ceiling of its run, null when the run has no valid memcpy-d2d
   * @param ceilingKernel the kernel that set it, null with it
   */
  public record ComparisonRow(String model, String deviceId, UUID resultId, String runId, Instant measuredAt,
      double bandwidth, Double ceilingBandwidth, String ceilingKernel, double theoreticalPeak, double relativeSpread) {}

  /**
   * The latest valid result of {@code kernel} with {@code params} per device model. Distinct models are found by
   * skipping through the {@code results_compare} index (a recursive query), then each model's latest is one
   * index probe, so the cost grows with the number of models, not of results.
   */
  public List<ComparisonRow> comparison(String kernel, String params) {
    String sql = """
        WITH RECURSIVE models(model) AS (
          (SELECT model FROM results WHERE kernel = ? AND params = ? AND valid ORDER BY model LIMIT 1)
          UNION ALL
          SELECT (SELECT r.model FROM results r WHERE r.kernel = ? AND r.params = ? AND r.valid AND r.model > m.model
                  ORDER BY r.model LIMIT 1)
          FROM models m WHERE m.model IS NOT NULL)
        SELECT x.model, x.device_id, x.id, x.run_id, x.measured_at, x.bandwidth, mc.bandwidth, mc.kernel,
               x.theoretical_peak, x.relative_spread
        FROM models m
        CROSS JOIN LATERAL (
          SELECT r.model, r.device_id, r.id, r.run_id, r.measured_at, r.bandwidth,
                 COALESCE(r.theoretical_peak, u.theoretical_peak) AS theoretical_peak, r.relative_spread
          FROM results r LEFT JOIN result_setups u ON u.key = r.setup_key
          WHERE r.kernel = ? AND r.params = ? AND r.valid AND r.model = m.model
          ORDER BY r.measured_at DESC LIMIT 1) x
        LEFT JOIN LATERAL (
          SELECT c.bandwidth, c.kernel FROM results c WHERE c.run_id = x.run_id AND c.valid
            AND EXISTS (SELECT 1 FROM results m WHERE m.run_id = x.run_id AND m.kernel = ? AND m.valid)
          ORDER BY c.bandwidth DESC LIMIT 1) mc ON TRUE
        WHERE m.model IS NOT NULL
        ORDER BY x.model""";
    Database.Binder bind = s -> Database.strings(s, kernel, params, kernel, params, kernel, params, MEMCPY_KERNEL);
    return db.list(sql, bind, rs -> {
      double ceiling = rs.getDouble(7);
      Double ceilingOrNull = rs.wasNull() ? null : ceiling;
      return new ComparisonRow(rs.getString(1), rs.getString(2), rs.getObject(3, UUID.class), rs.getString(4),
          Database.instant(rs, 5), rs.getDouble(6), ceilingOrNull, rs.getString(8), rs.getDouble(9), rs.getDouble(10));
    });
  }

  /**
   * A past valid result of one device, kernel and params, with what its environment was; {@code origin} is where the
   * coordinator got it ({@link #origin}: the fleet, or a push from a named host); {@code clocks} its typed
   * clocks, null for a result stored before them, whose clocks only its {@code method} states.
   */
  public record HistoryPoint(UUID resultId, Instant measuredAt, double bandwidth, String driverVersion,
      String agentVersion, String fatbinHash, String method, String origin, Clocks clocks) {

    /** A point without typed clocks: they are in its method's words only. */
    public HistoryPoint(UUID resultId, Instant measuredAt, double bandwidth, String driverVersion,
        String agentVersion, String fatbinHash, String method, String origin) {
      this(resultId, measuredAt, bandwidth, driverVersion, agentVersion, fatbinHash, method, origin, null);
    }

    /** A fleet result's point without typed clocks. */
    public HistoryPoint(UUID resultId, Instant measuredAt, double bandwidth, String driverVersion,
        String agentVersion, String fatbinHash, String method) {
      this(resultId, measuredAt, bandwidth, driverVersion, agentVersion, fatbinHash, method, FLEET);
    }
  }

  /** The origin of a result that came from a fleet agent over the event bus. */
  public static final String FLEET = "fleet";

  /** Where a result came from, in words: {@link #FLEET}, or "pushed from HOST (FILE) with token NAME". */
  public static String origin(io.busload.protocol.Origin origin) {
    return origin == null ? FLEET : origin.describe();
  }

  /** The newest {@code limit} valid results of one device, kernel and params measured before {@code before}. */
  public List<HistoryPoint> history(String deviceId, String kernel, String params, Instant before, int limit) {
    return db.list("SELECT r.id, r.measured_at, r.bandwidth, "
        + ResultSetups.columns("driver_version", "agent_version", "fatbin_hash") + ", r.method, r.origin, "
        + StoredClocks.COLUMNS + " FROM results r" + ResultSetups.JOIN
        + " WHERE r.device_id = ? AND r.kernel = ? AND r.params = ? AND r.measured_at < ? AND r.valid"
        + " ORDER BY r.measured_at DESC LIMIT ?", s -> {
          Database.strings(s, deviceId, kernel, params);
          s.setObject(4, Database.timestamp(before));
          s.setInt(5, limit);
        }, rs -> {
          String origin = rs.getString(8);
          return new HistoryPoint(rs.getObject(1, UUID.class), Database.instant(rs, 2), rs.getDouble(3),
              rs.getString(4), rs.getString(5), rs.getString(6), rs.getString(7), origin(origin == null ? null
                  : JsonCodec.fromJson(origin.getBytes(StandardCharsets.UTF_8), io.busload.protocol.Origin.class)),
              StoredClocks.of(rs.getString(9), rs.getBytes(10)));
        });
  }

  /** A change beyond a history's noise band, in either direction. */
  public record Change(UUID id, UUID resultId, Kind kind, String deviceId, String model, String kernel, String params,
      double bandwidth, double baselineMedian, double baselineMad, double noiseBand, double robustZ,
      double changeFraction, int historyCount, Map<String, Map<String, String>> environmentDiff, Instant measuredAt,
      Instant detectedAt) {
    public enum Kind { REGRESSION, IMPROVEMENT }
  }

  public void insertChanges(List<Change> changes) {
    db.batch("INSERT INTO regressions (id, result_id, kind, device_id, model, kernel, params, bandwidth,"
        + " baseline_median, baseline_mad, noise_band, robust_z, change_fraction, history_count, environment_json,"
        + " measured_at, detected_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        + " ON CONFLICT DO NOTHING",
        changes, ch -> new Object[] {ch.id(), ch.resultId(), ch.kind().name(), ch.deviceId(), ch.model(),
            ch.kernel(), ch.params(), ch.bandwidth(), ch.baselineMedian(), ch.baselineMad(), ch.noiseBand(),
            ch.robustZ(), ch.changeFraction(), ch.historyCount(), Database.json(ch.environmentDiff()),
            Database.timestamp(ch.measuredAt()), Database.timestamp(ch.detectedAt())});
  }

  private static final TypeReference<Map<String, Map<String, String>>> DIFF = new TypeReference<>() {};

  /** Recorded changes, newest first, optionally of one device, kernel or kind. */
  public List<Change> changes(String deviceId, String kernel, String kind, int limit) {
    return db.list("SELECT id, result_id, kind, device_id, model, kernel, params, bandwidth, baseline_median,"
        + " baseline_mad, noise_band, robust_z, change_fraction, history_count, environment_json, measured_at,"
        + " detected_at FROM regressions WHERE (? IS NULL OR device_id = ?) AND (? IS NULL OR kernel = ?)"
        + " AND (? IS NULL OR kind = ?) ORDER BY detected_at DESC, id DESC LIMIT ?", s -> {
          Database.strings(s, deviceId, deviceId, kernel, kernel, kind, kind);
          s.setInt(7, limit);
        }, rs -> new Change(rs.getObject(1, UUID.class), rs.getObject(2, UUID.class),
            Change.Kind.valueOf(rs.getString(3)), rs.getString(4), rs.getString(5), rs.getString(6),
            rs.getString(7), rs.getDouble(8), rs.getDouble(9), rs.getDouble(10), rs.getDouble(11),
            rs.getDouble(12), rs.getDouble(13), rs.getInt(14),
            Database.json(rs.getString(15), DIFF, "environment diff is not JSON"), Database.instant(rs, 16),
            Database.instant(rs, 17)));
  }
}
