package io.busload.coordinator.store;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * The reads behind the dashboard's Compare and History views, each bounded by what the view draws rather than by
 * how many results are stored (every view in under 2 s with 1,000,000 results). Before these, Compare
 * read the newest 5,000 whole results of every device and History 5,000 results just to list its kernels, plus
 * 10,000 whole results (samples included) to draw one line per device.
 *
 * <p>Distinct (kernel, params) pairs are found by skipping through an index (a recursive query, one probe per
 * pair), so the cost grows with the catalog, not with the results: about 80 probes for a million results.
 */
public final class ViewStore {
  /** Every (kernel, params) pair with a valid result, found through {@code results_compare} (partial on valid). */
  private static final String PAIRS = """
      WITH RECURSIVE pairs(kernel, params) AS (
        (SELECT kernel, params FROM results WHERE valid ORDER BY kernel, params LIMIT 1)
        UNION ALL
        SELECT n.kernel, n.params FROM pairs p CROSS JOIN LATERAL (
          SELECT r.kernel, r.params FROM results r WHERE r.valid AND (r.kernel, r.params) > (p.kernel, p.params)
          ORDER BY r.kernel, r.params LIMIT 1) n)
      """;

  /** One device's (kernel, params) pairs, through {@code results_history} (device_id, kernel, params, ...). */
  private static final String DEVICE_PAIRS = """
      WITH RECURSIVE pairs(kernel, params) AS (
        (SELECT kernel, params FROM results WHERE device_id = ? ORDER BY kernel, params LIMIT 1)
        UNION ALL
        SELECT n.kernel, n.params FROM pairs p CROSS JOIN LATERAL (
          SELECT r.kernel, r.params FROM results r WHERE r.device_id = ? AND (r.kernel, r.params) > (p.kernel, p.params)
          ORDER BY r.kernel, r.params LIMIT 1) n)
      """;

  private final Database db;

  public ViewStore(Database db) {
    this.db = db;
  }

  /** A kernel and its parameters as results show them ({@code size=1024;stride=4}). */
  public record KernelParams(String kernel, String params) {}

  /**
   * One point of a kernel's history: enough to draw it and to find the result behind it; {@code pushed} when it came
   * by {@code ./busload push} rather than from a fleet agent (the result's origin says from where); {@code
   * measuredBy} the other tool and its version ("BabelStream 5.0") where the push was that tool's output, else null.
   */
  public record HistoryPoint(UUID resultId, String deviceId, String model, Instant measuredAt, double bandwidth,
      boolean pushed, @com.fasterxml.jackson.annotation.JsonInclude(
          com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL) String measuredBy) {

    /** A fleet result's point. */
    public HistoryPoint(UUID resultId, String deviceId, String model, Instant measuredAt, double bandwidth) {
      this(resultId, deviceId, model, measuredAt, bandwidth, false, null);
    }

    /** A point of Busload's own measuring, pushed or not. */
    public HistoryPoint(UUID resultId, String deviceId, String model, Instant measuredAt, double bandwidth,
        boolean pushed) {
      this(resultId, deviceId, model, measuredAt, bandwidth, pushed, null);
    }
  }

  /** Every (kernel, params) pair that has a valid result, sorted by kernel, then params. */
  public List<KernelParams> kernels() {
    return db.list(PAIRS + "SELECT kernel, params FROM pairs ORDER BY kernel, params", Database.Binder.NONE,
        rs -> new KernelParams(rs.getString(1), rs.getString(2)));
  }

  /**
   * The newest valid result of each (kernel, params) of one device ({@code deviceId}) or one device model
   * ({@code model}, any device of it), as stored (the agent's JSON), sorted by kernel, then params. Exactly one of
   * the two is given.
   */
  public List<String> latest(String deviceId, String model) {
    if ((deviceId == null) == (model == null)) {
      throw new IllegalArgumentException("give a device or a model, not both or neither");
    }
    String sql = deviceId != null
        ? DEVICE_PAIRS + "SELECT x.result_json, x.samples FROM pairs p CROSS JOIN LATERAL (SELECT r.result_json, "
            + StoredSamples.COLUMN + " FROM results r" + StoredSamples.JOIN
            + " WHERE r.device_id = ? AND r.kernel = p.kernel AND r.params = p.params AND r.valid"
            + " ORDER BY r.measured_at DESC LIMIT 1) x ORDER BY p.kernel, p.params"
        : PAIRS + "SELECT x.result_json, x.samples FROM pairs p CROSS JOIN LATERAL (SELECT r.result_json, "
            + StoredSamples.COLUMN + " FROM results r" + StoredSamples.JOIN
            + " WHERE r.kernel = p.kernel AND r.params = p.params AND r.model = ? AND r.valid"
            + " ORDER BY r.measured_at DESC LIMIT 1) x ORDER BY p.kernel, p.params";
    Database.Binder bind = deviceId != null
        ? s -> Database.strings(s, deviceId, deviceId, deviceId)
        : s -> Database.strings(s, model);
    return db.list(sql, bind, rs -> StoredSamples.text(rs.getBytes(1), rs.getArray(2)));
  }

  /** The newest {@code limit} valid results of {@code kernel} with {@code params}, every device, newest first. */
  public List<HistoryPoint> history(String kernel, String params, int limit) {
    return db.list("SELECT r.id, r.device_id, r.model, r.measured_at, r.bandwidth, p.push_id IS NOT NULL,"
        + " (r.origin::jsonb #>> '{measuredBy,tool}') || ' ' || (r.origin::jsonb #>> '{measuredBy,version}')"
        + " FROM results r LEFT JOIN pushed_results p ON p.result_id = r.id"
        + " WHERE r.kernel = ? AND r.params = ? AND r.valid AND r.bandwidth IS NOT NULL"
        + " ORDER BY r.measured_at DESC, r.id DESC LIMIT ?", s -> {
          Database.strings(s, kernel, params);
          s.setInt(3, limit);
        }, rs -> new HistoryPoint(rs.getObject(1, UUID.class), rs.getString(2), rs.getString(3),
            Database.instant(rs, 4), rs.getDouble(5), rs.getBoolean(6), rs.getString(7)));
  }
}
