package io.busload.coordinator.store;

import io.busload.protocol.Clocks;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.Energy;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import io.busload.protocol.Sampling;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

/**
 * A batch of results as one array per column of {@link #INSERT}, filled row by row, for {@link
 * ResultStore#insertIncoming}. At 20,000 results/s: numbers go as primitive arrays, which PgJDBC sends in
 * binary, so neither side formats or parses them as text; every result's samples go in one array, sliced per row by
 * the server into result_samples; the JSON goes as bytes, compressed (re-encoded only to take the samples out). Kept
 * apart from the statement's execution so that each method
 * stays small: one long method doing both was compiled by C2 over and over (13 times, 5 s of compiler time in a 10 s
 * ingest on two cores).
 */
final class ResultColumns {
  static final String INSERT = "WITH p AS (SELECT ?::timestamptz AS stored_at, ?::float8[] AS samples),"
      + " t AS (SELECT * FROM unnest(?::uuid[], ?::text[], ?::text[], ?::text[], ?::int4[], ?::text[], ?::text[],"
      + " ?::bool[], ?::float8[], ?::float8[], ?::float8[], ?::float8[], ?::int4[], ?::int8[], ?::float8[], ?::text[],"
      + " ?::text[], ?::int4[], ?::int4[], ?::bytea[], ?::text[], ?::text[], ?::text[], ?::int4[], ?::int4[],"
      + " ?::int4[],"
      + " ?::text[], ?::text[], ?::int4[], ?::int4[], ?::int4[], ?::int4[], ?::int8[], ?::int4[], ?::bool[],"
      + " ?::text[], ?::int8[], ?::float8[], ?::float8[], ?::float8[], ?::float8[], ?::int8[], ?::int4[])"
      + " WITH ORDINALITY AS t(id, sweep_id, run_id, device_id, setup_key, kernel, params, valid,"
      + " median_seconds, min_seconds, max_seconds, relative_spread, launches_per_sample, bytes, bandwidth,"
      + " measured_at, model, first_sample, last_sample, result_json, method, origin, status, held_samples,"
      + " unheld_samples,"
      + " retimed_samples, stop_reason, clocks_reading, sm_clock_min_mhz, sm_clock_max_mhz, mem_clock_min_mhz,"
      + " mem_clock_max_mhz, throttle_reasons, throttled_samples_dropped, too_few_clean_samples, cache_residency,"
      + " working_set_bytes, energy_joules, energy_average_watts, energy_idle_watts, energy_window_seconds,"
      + " energy_launches, energy_counter_steps, n)),"
      // The first of each id in the batch; the caller compares the others with what is stored (ResultStore).
      + " f AS (SELECT DISTINCT ON (id) * FROM t ORDER BY id, n),"
      // An id is taken once whatever its measured_at (V10): only an id new to result_ids is stored.
      + " fresh AS (INSERT INTO result_ids (id, measured_at) SELECT id, measured_at::timestamptz FROM f"
      + " ON CONFLICT DO NOTHING RETURNING id),"
      // What results of one setup share (agent, fingerprint, suite, peak, driver, agent version, fatbin) is in
      // result_setups (V20), named by setup_key; those columns of results stay NULL.
      + " stored AS (INSERT INTO results (id, sweep_id, run_id, device_id, setup_key, kernel, params, valid,"
      + " median_seconds, min_seconds, max_seconds, relative_spread, launches_per_sample, bytes, bandwidth,"
      + " measured_at, stored_at, model, result_json, method, origin, status, held_samples, unheld_samples,"
      + " retimed_samples, stop_reason, clocks_reading, sm_clock_min_mhz, sm_clock_max_mhz, mem_clock_min_mhz,"
      + " mem_clock_max_mhz, throttle_reasons,"
      + " throttled_samples_dropped, too_few_clean_samples, cache_residency, working_set_bytes, energy_joules,"
      + " energy_average_watts, energy_idle_watts, energy_window_seconds, energy_launches, energy_counter_steps)"
      + " SELECT t.id, t.sweep_id, t.run_id, t.device_id, t.setup_key, t.kernel, t.params,"
      + " t.valid, t.median_seconds, t.min_seconds, t.max_seconds, t.relative_spread, t.launches_per_sample, t.bytes,"
      + " nullif(t.bandwidth, 'NaN'::float8), t.measured_at::timestamptz, p.stored_at, t.model, t.result_json,"
      + " t.method, t.origin, t.status, t.held_samples, t.unheld_samples, t.retimed_samples,"
      + " t.stop_reason, t.clocks_reading, t.sm_clock_min_mhz, t.sm_clock_max_mhz, t.mem_clock_min_mhz,"
      + " t.mem_clock_max_mhz, t.throttle_reasons,"
      + " t.throttled_samples_dropped, t.too_few_clean_samples, t.cache_residency, t.working_set_bytes,"
      + " t.energy_joules, t.energy_average_watts, t.energy_idle_watts, t.energy_window_seconds, t.energy_launches,"
      + " t.energy_counter_steps"
      + " FROM f AS t JOIN fresh USING (id) CROSS JOIN p"
      // A row under the id cannot be there once result_ids took it; kept so that a store repaired by hand stays
      // idempotent.
      + " ON CONFLICT DO NOTHING RETURNING id, measured_at),"
      // The raw samples go to their own month partitions (V16), which age out apart from the summary; a result
      // measured in a month whose samples were dropped already keeps none.
      + " kept AS (INSERT INTO result_samples (result_id, measured_at, samples)"
      + " SELECT s.id, s.measured_at, p.samples[t.first_sample:t.last_sample] FROM stored s JOIN f AS t USING (id)"
      + " CROSS JOIN p WHERE t.last_sample >= t.first_sample AND s.measured_at >= "
      + SampleRetention.KEPT_SINCE + ")"
      + " SELECT id FROM stored";

  /** The setups' columns, in the order of {@link #SETUPS} and {@link #SETUP_KEYS}. */
  private static final String SETUP_COLUMNS = "agent_id, fingerprint, suite, theoretical_peak, driver_version,"
      + " agent_version, fatbin_hash";
  private static final String SETUP_ROWS = " FROM unnest(?::text[], ?::text[], ?::text[], ?::float8[], ?::text[],"
      + " ?::text[], ?::text[]) WITH ORDINALITY AS t(" + SETUP_COLUMNS + ", n)";

  /**
   * Stores the batch's setups that result_setups does not hold yet. A statement of its own, before {@link
   * #SETUP_KEYS}: where another coordinator is storing the same setup, ON CONFLICT waits for its transaction, and only
   * a later statement's snapshot sees the row it committed. In digest order, so that two batches take their locks in
   * one order.
   */
  static final String SETUPS = "INSERT INTO result_setups (digest, " + SETUP_COLUMNS + ") SELECT digest, "
      + SETUP_COLUMNS + " FROM (SELECT result_setup_digest(" + SETUP_COLUMNS + ") AS digest, " + SETUP_COLUMNS
      + SETUP_ROWS + ") d ORDER BY digest ON CONFLICT (digest) DO NOTHING";

  /** The key of each of the batch's setups, in the order they were bound. */
  static final String SETUP_KEYS = "SELECT u.key FROM (SELECT result_setup_digest(" + SETUP_COLUMNS + ") AS digest, n"
      + SETUP_ROWS + ") d JOIN result_setups u USING (digest) ORDER BY d.n";

  /**
   * Makes the month partitions of {@link #months()} that are missing, of results (V8) and of result_samples (V16)
   * where that month's samples are still kept; a no-op once they exist.
   */
  static final String PARTITIONS = "SELECT results_partition_for(m::timestamptz), CASE WHEN m::timestamptz >= "
      + SampleRetention.KEPT_SINCE + " THEN result_samples_partition_for(m::timestamptz) END"
      + " FROM unnest(?::text[]) AS m";

  final List<KernelResult> records;
  final UUID[] ids;
  final String[] sweepIds;
  final String[] runIds;
  final String[] deviceIds;
  /** Each row's index in {@link #setups}. */
  final int[] setupOf;
  /** Each row's key in result_setups, once {@link #setupKeys} has found them. */
  final int[] setupKeys;
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
  final int[] firstSample;
  final int[] lastSample;
  final double[] samples;
  /** {@link ResultJson#pack}ed: the agent's JSON, compressed. */
  final byte[][] json;
  final String[] methods;
  /** The JSON of each result's origin, null for the fleet's: SQL reads it without unpacking the result. */
  final String[] origins;
  /** How each result was measured: nullable where nothing was timed or read, so boxed and sent as arrays with NULLs. */
  final String[] statuses;
  final Integer[] held;
  final Integer[] unheld;
  final Integer[] retimed;
  final String[] stopReasons;
  final String[] clocksReadings;
  final Integer[] smMin;
  final Integer[] memMin;
  final Integer[] memMax;
  final Integer[] smMax;
  final Long[] throttleReasons;
  final Integer[] throttledDropped;
  final Boolean[] tooFewClean;
  final String[] cacheResidencies;
  final Long[] workingSets;
  /** The energy's columns (V13): NULL where it was not read. */
  final Double[] energyJoules;
  final Double[] energyWatts;
  final Double[] energyIdleWatts;
  final Double[] energyWindows;
  final Long[] energyLaunches;
  final Integer[] energySteps;
  /**
   * What results of one device under one agent build share (V20), once each, in the order first met: a batch of
   * 1,000 results from one agent holds one or a few.
   */
  private final Map<Setup, Integer> setups = new LinkedHashMap<>();
  /** A SHA-256 per result was a tenth of the insert's time; a batch holds few devices. */
  private final Map<DeviceInfo, String> fingerprintOf = new HashMap<>();
  private int row;
  private int sample;

  ResultColumns(List<ResultStore.Incoming> results) {
    int n = results.size();
    records = new ArrayList<>(n);
    ids = new UUID[n];
    sweepIds = new String[n];
    runIds = new String[n];
    deviceIds = new String[n];
    setupOf = new int[n];
    setupKeys = new int[n];
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
    firstSample = new int[n];
    lastSample = new int[n];
    json = new byte[n][];
    methods = new String[n];
    origins = new String[n];
    statuses = new String[n];
    held = new Integer[n];
    unheld = new Integer[n];
    retimed = new Integer[n];
    stopReasons = new String[n];
    clocksReadings = new String[n];
    smMin = new Integer[n];
    memMin = new Integer[n];
    memMax = new Integer[n];
    smMax = new Integer[n];
    throttleReasons = new Long[n];
    throttledDropped = new Integer[n];
    tooFewClean = new Boolean[n];
    cacheResidencies = new String[n];
    workingSets = new Long[n];
    energyJoules = new Double[n];
    energyWatts = new Double[n];
    energyIdleWatts = new Double[n];
    energyWindows = new Double[n];
    energyLaunches = new Long[n];
    energySteps = new Integer[n];
    int sampleCount = 0;
    for (ResultStore.Incoming incoming : results) {
      sampleCount += incoming.result().samples().size();
    }
    samples = new double[sampleCount];
    for (ResultStore.Incoming incoming : results) {
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
    deviceIds[i] = device.id();
    Setup setup = new Setup(r.agentId(), fingerprintOf.computeIfAbsent(device, DeviceInfo::fingerprint), r.suite(),
        device.theoreticalPeakBytesPerSecond(), device.driverVersion(), r.agentVersion(), r.fatbinHash());
    setupOf[i] = setups.computeIfAbsent(setup, k -> setups.size());
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
    firstSample[i] = sample + 1; // PostgreSQL arrays count from 1; an empty slice [k+1:k] is '{}'
    for (double d : r.samples()) {
      samples[sample++] = d;
    }
    lastSample[i] = sample;
    // Without its samples: they are kept in result_samples for as long as the retention says, the rest for good.
    json[i] = ResultJson.pack(r.samples().isEmpty() && given != null ? given
        : JsonCodec.toJson(StoredSamples.withSamples(r, List.of())));
    methods[i] = r.method();
    origins[i] = r.origin() == null ? null : Database.json(r.origin());
    statuses[i] = r.status().name();
    addSampling(i, r.sampling());
    addEnergy(i, r.energy());
  }

  private void addEnergy(int i, Energy e) {
    if (e == null) {
      return;
    }
    energyJoules[i] = e.joules();
    energyWatts[i] = e.averageWatts();
    energyIdleWatts[i] = e.idleWatts();
    energyWindows[i] = e.windowSeconds();
    energyLaunches[i] = e.launches();
    energySteps[i] = e.counterSteps();
  }

  private void addSampling(int i, Sampling s) {
    if (s == null) {
      return;
    }
    held[i] = s.heldSamples();
    unheld[i] = s.unheldSamples();
    retimed[i] = s.retimedSamples();
    stopReasons[i] = s.stopReason().name();
    Clocks clocks = s.clocks();
    clocksReadings[i] = clocks.reading().name();
    smMin[i] = clocks.smMinMHz();
    smMax[i] = clocks.smMaxMHz();
    memMin[i] = clocks.memMinMHz();
    memMax[i] = clocks.memMaxMHz();
    throttleReasons[i] = clocks.throttleReasons();
    throttledDropped[i] = clocks.throttledSamplesDropped();
    tooFewClean[i] = clocks.tooFewCleanSamples();
    cacheResidencies[i] = s.cache().residency().name();
    workingSets[i] = s.cache().workingSetBytes();
  }

  /** The first instant (UTC) of every month that a result of the batch was measured in, once each. */
  String[] months() {
    Set<String> months = new TreeSet<>();
    for (KernelResult r : records) {
      months.add(YearMonth.from(r.measuredAt().atOffset(ZoneOffset.UTC)) + "-01T00:00:00Z");
    }
    return months.toArray(String[]::new);
  }

  /** What every result of one device under one agent build shares: a row of result_setups (V20). */
  record Setup(String agentId, String fingerprint, String suite, double theoreticalPeak, String driverVersion,
      String agentVersion, String fatbinHash) {}

  /**
   * Stores the batch's new setups ({@link #SETUPS}), then finds every setup's key ({@link #SETUP_KEYS}) and gives
   * each row its own: what {@link #bind} sends as setup_key.
   */
  void setupKeys(Connection c) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(SETUPS)) {
      bindSetups(c, s);
      s.executeUpdate();
    }
    int[] keys = new int[setups.size()];
    try (PreparedStatement s = c.prepareStatement(SETUP_KEYS)) {
      bindSetups(c, s);
      try (ResultSet rs = s.executeQuery()) {
        int k = 0;
        while (rs.next()) {
          keys[k++] = rs.getInt(1);
        }
        if (k != keys.length) {
          throw new SQLException("result_setups: found " + k + " of the batch's " + keys.length + " setups");
        }
      }
    }
    for (int i = 0; i < setupOf.length; i++) {
      setupKeys[i] = keys[setupOf[i]];
    }
  }

  private void bindSetups(Connection c, PreparedStatement s) throws SQLException {
    List<Setup> list = List.copyOf(setups.keySet());
    s.setArray(1, c.createArrayOf("text", list.stream().map(Setup::agentId).toArray()));
    s.setArray(2, c.createArrayOf("text", list.stream().map(Setup::fingerprint).toArray()));
    s.setArray(3, c.createArrayOf("text", list.stream().map(Setup::suite).toArray()));
    s.setObject(4, list.stream().mapToDouble(Setup::theoreticalPeak).toArray());
    s.setArray(5, c.createArrayOf("text", list.stream().map(Setup::driverVersion).toArray()));
    s.setArray(6, c.createArrayOf("text", list.stream().map(Setup::agentVersion).toArray()));
    s.setArray(7, c.createArrayOf("text", list.stream().map(Setup::fatbinHash).toArray()));
  }

  /** Binds the samples and then every column, from parameter {@code first} on, in {@link #INSERT}'s order. */
  void bind(Connection c, PreparedStatement s, int first) throws SQLException {
    int p = first;
    s.setObject(p++, samples);
    s.setArray(p++, c.createArrayOf("uuid", ids));
    p = texts(c, s, p, sweepIds, runIds, deviceIds);
    s.setObject(p++, setupKeys);
    p = texts(c, s, p, kernels, params);
    s.setObject(p++, valid);
    s.setObject(p++, medians);
    s.setObject(p++, mins);
    s.setObject(p++, maxs);
    s.setObject(p++, spreads);
    s.setObject(p++, launches);
    s.setObject(p++, bytes);
    s.setObject(p++, bandwidths);
    p = texts(c, s, p, measuredAt, models);
    s.setObject(p++, firstSample);
    s.setObject(p++, lastSample);
    s.setObject(p++, json);
    p = texts(c, s, p, methods, origins, statuses);
    p = arrays(c, s, p, "int4", held, unheld, retimed);
    p = texts(c, s, p, stopReasons, clocksReadings);
    p = arrays(c, s, p, "int4", smMin, smMax, memMin, memMax);
    s.setArray(p++, c.createArrayOf("int8", throttleReasons));
    s.setArray(p++, c.createArrayOf("int4", throttledDropped));
    s.setArray(p++, c.createArrayOf("bool", tooFewClean));
    p = texts(c, s, p, cacheResidencies);
    s.setArray(p++, c.createArrayOf("int8", workingSets));
    p = arrays(c, s, p, "float8", energyJoules, energyWatts, energyIdleWatts, energyWindows);
    s.setArray(p++, c.createArrayOf("int8", energyLaunches));
    s.setArray(p, c.createArrayOf("int4", energySteps));
  }

  /** Columns that may hold NULLs, as SQL arrays of {@code type}. */
  private static int arrays(Connection c, PreparedStatement s, int first, String type, Object[]... columns)
      throws SQLException {
    int p = first;
    for (Object[] column : columns) {
      s.setArray(p++, c.createArrayOf(type, column));
    }
    return p;
  }

  private static int texts(Connection c, PreparedStatement s, int first, String[]... columns) throws SQLException {
    int p = first;
    for (String[] column : columns) {
      s.setArray(p++, c.createArrayOf("text", column));
    }
    return p;
  }
}
