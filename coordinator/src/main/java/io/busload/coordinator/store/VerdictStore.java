package io.busload.coordinator.store;

import io.busload.protocol.Clocks;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import java.nio.charset.StandardCharsets;
import java.sql.Array;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * What the verdicts read and write: series with their samples, E-Divisive's change points, operators'
 * accepted-change marks, the figures the cohort check compares. Its own class (one store per aggregate); it reads
 * the results table and never writes it.
 */
public final class VerdictStore {
  private final Database database;

  public VerdictStore(Database database) {
    this.database = database;
  }

  /**
   * One valid result of a series, as the change detectors and the A/B verdict need it.
   *
   * @param clocks its typed clocks; null for a result stored before them, whose {@code method} alone
   *     states its clocks
   */
  public record Point(UUID resultId, Instant measuredAt, double bandwidth, List<Double> samples, long bytes,
      String model, String fingerprint, String driverVersion, String agentVersion, String fatbinHash, String method,
      String origin, Clocks clocks) {}

  /**
   * The newest {@code limit} valid results of one series measured before {@code before} and at or after
   * {@code since} (null: no lower bound), newest first.
   */
  public List<Point> series(String deviceId, String kernel, String params, Instant since, Instant before, int limit) {
    return database.inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement("SELECT r.id, r.measured_at, r.bandwidth, " + StoredSamples.COLUMN
          + ", r.bytes, r.model, "
          + ResultSetups.columns("fingerprint", "driver_version", "agent_version", "fatbin_hash")
          + ", r.method, r.origin, " + StoredClocks.COLUMNS + " FROM (SELECT * FROM results"
          + " WHERE device_id = ? AND kernel = ? AND params = ? AND valid AND measured_at < ?"
          + " AND (?::timestamptz IS NULL OR measured_at >= ?) ORDER BY measured_at DESC LIMIT ?) r"
          + StoredSamples.JOIN + ResultSetups.JOIN + " ORDER BY r.measured_at DESC")) {
        s.setString(1, deviceId);
        s.setString(2, kernel);
        s.setString(3, params);
        s.setObject(4, Database.timestamp(before));
        s.setObject(5, Database.timestamp(since));
        s.setObject(6, Database.timestamp(since));
        s.setInt(7, limit);
        try (ResultSet rs = s.executeQuery()) {
          List<Point> points = new ArrayList<>();
          while (rs.next()) {
            points.add(new Point(rs.getObject(1, UUID.class), Database.instant(rs, 2), rs.getDouble(3),
                doubles(rs.getArray(4)), rs.getLong(5), rs.getString(6), rs.getString(7), rs.getString(8),
                rs.getString(9), rs.getString(10), rs.getString(11), origin(rs.getString(12)),
                StoredClocks.of(rs.getString(13), rs.getBytes(14))));
          }
          return points;
        }
      }
    });
  }

  /** Where a stored result came from, in {@link ComparisonStore#origin}'s words (the JSON of its origin; null: the fleet). */
  private static String origin(String json) {
    return ComparisonStore.origin(json == null ? null
        : JsonCodec.fromJson(json.getBytes(StandardCharsets.UTF_8), io.busload.protocol.Origin.class));
  }

  private static List<Double> doubles(Array array) throws SQLException {
    if (array == null) {
      return List.of();
    }
    Object values = array.getArray();
    return values instanceof Double[] boxed ? Arrays.asList(boxed) : List.of();
  }

  /** Results measured before this have had their raw samples aged out ({@link SampleRetention}); empty: none. */
  public Optional<Instant> samplesDroppedBefore() {
    return new SampleRetention(database).droppedBefore();
  }

  /** The devices that measured a kernel case, for the History view's annotations. */
  public List<String> devicesOf(String kernel, String params) {
    return database.inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement(
          "SELECT DISTINCT device_id FROM results WHERE kernel = ? AND params = ? AND valid ORDER BY device_id")) {
        s.setString(1, kernel);
        s.setString(2, params);
        try (ResultSet rs = s.executeQuery()) {
          List<String> devices = new ArrayList<>();
          while (rs.next()) {
            devices.add(rs.getString(1));
          }
          return devices;
        }
      }
    });
  }

  // ---- change points found on arrival

  /** Device, kernel and params, each matched only when given: bound by {@link #bindSeries}. */
  private static final String SERIES_FILTER = "(?::text IS NULL OR device_id = ?) AND (?::text IS NULL OR kernel = ?)"
      + " AND (?::text IS NULL OR params = ?)";

  /** As {@link #SERIES_FILTER}, and a mark for a whole device or kernel (null kernel or params) covers its cases. */
  private static final String MARK_FILTER = "(?::text IS NULL OR device_id = ?)"
      + " AND (?::text IS NULL OR kernel IS NULL OR kernel = ?) AND (?::text IS NULL OR params IS NULL OR params = ?)";

  private static void bindSeries(PreparedStatement s, String deviceId, String kernel, String params, int limit)
      throws SQLException {
    s.setString(1, deviceId);
    s.setString(2, deviceId);
    s.setString(3, kernel);
    s.setString(4, kernel);
    s.setString(5, params);
    s.setString(6, params);
    s.setInt(7, limit);
  }

  /**
   * A level shift E-Divisive announced.
   *
   * @param verdictJson the A/B verdict of the runs after the change against those before, as JSON
   */
  public record StoredChangePoint(UUID id, String deviceId, String model, String kernel, String params, String kind,
      UUID firstResultId, UUID announcedResultId, double beforeMedian, double afterMedian, double changeFraction,
      double noiseSigma, double pValue, String verdictJson, Instant measuredAt, Instant detectedAt) {}

  /** Stores the change points; one already stored for the same series and first result is left as it is. */
  public void insertChangePoints(List<StoredChangePoint> changes) {
    database.batch("INSERT INTO change_points (id, device_id, model, kernel, params, kind, first_result_id,"
        + " announced_result_id, before_median, after_median, change_fraction, noise_sigma, p_value, verdict_json,"
        + " measured_at, detected_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
        changes, ch -> new Object[] {ch.id(), ch.deviceId(), ch.model(), ch.kernel(), ch.params(), ch.kind(),
            ch.firstResultId(), ch.announcedResultId(), ch.beforeMedian(), ch.afterMedian(), ch.changeFraction(),
            ch.noiseSigma(), ch.pValue(), ch.verdictJson(), Database.timestamp(ch.measuredAt()),
            Database.timestamp(ch.detectedAt())});
  }

  /** Stored change points, newest first; each filter may be null. */
  public List<StoredChangePoint> changePoints(String deviceId, String kernel, String params, int limit) {
    return database.list("SELECT id, device_id, model, kernel, params, kind, first_result_id, announced_result_id,"
        + " before_median, after_median, change_fraction, noise_sigma, p_value, verdict_json, measured_at, detected_at"
        + " FROM change_points WHERE " + SERIES_FILTER + " ORDER BY detected_at DESC, id DESC LIMIT ?",
        s -> bindSeries(s, deviceId, kernel, params, limit),
        rs -> new StoredChangePoint(rs.getObject(1, UUID.class), rs.getString(2), rs.getString(3), rs.getString(4),
            rs.getString(5), rs.getString(6), rs.getObject(7, UUID.class), rs.getObject(8, UUID.class),
            rs.getDouble(9), rs.getDouble(10), rs.getDouble(11), rs.getDouble(12), rs.getDouble(13),
            rs.getString(14), Database.instant(rs, 15), Database.instant(rs, 16)));
  }

  // ---- accepted changes

  /**
   * An operator's mark: the baseline of the series restarts at {@code from}.
   *
   * @param kernel null: every kernel of the device
   * @param params null: every params of the kernel
   * @param acceptedBy the name of the API token that made it
   */
  public record AcceptedChange(UUID id, String deviceId, String kernel, String params, Instant from, String acceptedBy,
      String reason, Instant createdAt) {}

  public void insertAccepted(AcceptedChange mark) {
    database.inTransaction(c -> Database.update(c, "INSERT INTO accepted_changes (id, device_id, kernel, params,"
        + " from_time, accepted_by, reason, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        s -> Database.values(s, mark.id(), mark.deviceId(), mark.kernel(), mark.params(),
            Database.timestamp(mark.from()), mark.acceptedBy(), mark.reason(), Database.timestamp(mark.createdAt()))));
  }

  /**
   * Marks that apply to a device (and to a kernel case of it, when given: marks for the whole device or kernel
   * apply too), newest {@code from} first.
   */
  public List<AcceptedChange> accepted(String deviceId, String kernel, String params, int limit) {
    return database.list("SELECT id, device_id, kernel, params, from_time, accepted_by, reason, created_at"
        + " FROM accepted_changes WHERE " + MARK_FILTER + " ORDER BY from_time DESC, id DESC LIMIT ?",
        s -> bindSeries(s, deviceId, kernel, params, limit),
        rs -> new AcceptedChange(rs.getObject(1, UUID.class), rs.getString(2), rs.getString(3), rs.getString(4),
            Database.instant(rs, 5), rs.getString(6), rs.getString(7), Database.instant(rs, 8)));
  }

  /** Where a series' baseline starts: the newest accepted mark or stored change point of it, or null. */
  public Instant baselineStart(String deviceId, String kernel, String params) {
    Optional<Instant> mark = accepted(deviceId, kernel, params, 1).stream().map(AcceptedChange::from).findFirst();
    Optional<Instant> change = changePoints(deviceId, kernel, params, 1).stream().map(StoredChangePoint::measuredAt)
        .findFirst();
    return mark.isEmpty() ? change.orElse(null) : change.isEmpty() || mark.get().isAfter(change.get()) ? mark.get()
        : change.get();
  }

  // ---- the cohort check's figures and the REST comparison's results

  /**
   * One device's figure for one kernel case: the median of its newest valid results' bandwidths.
   *
   * @param clocks each result's typed clocks, in the order of {@code bandwidths}: null for one stored without them,
   *     whose {@code methods} entry alone states its clocks
   */
  public record Figure(String deviceId, String model, String driverVersion, String kernel, String params,
      List<Double> bandwidths, List<String> methods, List<Clocks> clocks) {}

  /** Every device's newest {@code perCase} valid results of each kernel case measured since {@code since}. */
  public List<Figure> figures(Instant since, int perCase) {
    return database.inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement("SELECT device_id, model, driver_version, kernel, params,"
          + " array_agg(bandwidth ORDER BY measured_at DESC), array_agg(method ORDER BY measured_at DESC),"
          + " array_agg(clocks_reading ORDER BY measured_at DESC), array_agg(clocks_json ORDER BY measured_at DESC)"
          + " FROM (SELECT r.device_id, r.model, " + ResultSetups.column("driver_version") + " AS driver_version,"
          + " r.kernel, r.params, r.bandwidth, r.method, r.measured_at, "
          + StoredClocks.COLUMNS + " AS clocks_json, row_number() OVER (PARTITION BY r.device_id, r.kernel, r.params"
          + " ORDER BY r.measured_at DESC) AS n FROM results r" + ResultSetups.JOIN
          + " WHERE r.valid AND r.measured_at >= ?) newest WHERE n <= ?"
          + " GROUP BY device_id, model, driver_version, kernel, params ORDER BY kernel, params, device_id")) {
        s.setObject(1, Database.timestamp(since));
        s.setInt(2, perCase);
        try (ResultSet rs = s.executeQuery()) {
          List<Figure> figures = new ArrayList<>();
          while (rs.next()) {
            List<String> methods = Arrays.asList((String[]) rs.getArray(7).getArray());
            String[] readings = (String[]) rs.getArray(8).getArray();
            byte[][] stored = (byte[][]) rs.getArray(9).getArray();
            List<Clocks> clocks = new ArrayList<>(readings.length);
            for (int i = 0; i < readings.length; i++) {
              clocks.add(StoredClocks.of(readings[i], stored[i]));
            }
            figures.add(new Figure(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
                doubles(rs.getArray(6)), methods, clocks));
          }
          return figures;
        }
      }
    });
  }

  /** Every result of a sweep; empty for a sweep without results (or none by that id). */
  public List<KernelResult> sweepResults(String sweepId) {
    return results("SELECT r.result_json, " + StoredSamples.COLUMN + " FROM results r" + StoredSamples.JOIN
        + " WHERE r.sweep_id = ? ORDER BY r.measured_at", sweepId);
  }

  /** The newest result of each kernel case measured on the device. */
  public List<KernelResult> deviceLatest(String deviceId) {
    return results("SELECT r.result_json, " + StoredSamples.COLUMN + " FROM (SELECT DISTINCT ON (kernel, params)"
        + " id, measured_at, result_json FROM results WHERE device_id = ? ORDER BY kernel, params, measured_at DESC) r"
        + StoredSamples.JOIN, deviceId);
  }

  private List<KernelResult> results(String sql, String key) {
    return database.inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement(sql)) {
        s.setString(1, key);
        try (ResultSet rs = s.executeQuery()) {
          List<KernelResult> results = new ArrayList<>();
          while (rs.next()) {
            results.add(StoredSamples.result(rs.getBytes(1), rs.getArray(2)));
          }
          return results;
        }
      }
    });
  }
}
