package io.busload.coordinator.store;

import io.busload.protocol.Counters;
import io.busload.protocol.KernelResult;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The {@code result_counters} table (V3): a profiled result's hardware counters beside its model. Kept apart from
 * the results insert, which is tuned for ingest speed, and called from it once, inside its transaction.
 */
public final class ResultCounters {
  /** Far more lines than a case has accesses, far fewer than would make a result a memory attack. */
  static final int MAX_LIST = 100;
  static final int MAX_LINE = 1_000;
  static final int MAX_METHOD = 10_000;

  private ResultCounters() {}

  /**
   * Why {@code counters} cannot be stored as they are, naming the field, or null: figures finite and not
   * negative, lists bounded, text bounded and free of NUL (PostgreSQL refuses it in text).
   */
  public static String problem(Counters counters) {
    List<String> names = List.of("loadSectorsPerRequest", "modelLoadSectorsPerRequest", "storeSectorsPerRequest",
        "modelStoreSectorsPerRequest", "dramBytesRead", "modelDramBytesRead", "dramBytesWritten",
        "modelDramBytesWritten");
    List<Double> figures = counters.figures();
    for (int i = 0; i < figures.size(); i++) {
      Double v = figures.get(i);
      if (v != null && !(Double.isFinite(v) && v >= 0)) {
        return "counters." + names.get(i) + ": must be a finite number, not negative";
      }
    }
    String problem = lines("counters.flags", counters.flags());
    if (problem == null) {
      problem = lines("counters.kernels", counters.kernels());
    }
    if (problem == null && counters.method() != null) {
      problem = text("counters.method", counters.method(), MAX_METHOD);
    }
    return problem;
  }

  private static String lines(String field, List<String> lines) {
    if (lines.size() > MAX_LIST) {
      return field + ": at most " + MAX_LIST + ", got " + lines.size();
    }
    for (String line : lines) {
      if (line == null) {
        return field + ": must not hold null";
      }
      String problem = text(field, line, MAX_LINE);
      if (problem != null) {
        return problem;
      }
    }
    return null;
  }

  private static String text(String field, String value, int max) {
    if (value.length() > max) {
      return field + ": at most " + max + " characters, got " + value.length();
    }
    return value.indexOf('\u0000') >= 0 ? field + ": must not contain NUL characters" : null;
  }

  /** The counters of those {@code results} whose ids are in {@code inserted}: a redelivered result adds no row. */
  static void insert(Connection c, List<KernelResult> results, Set<UUID> inserted) throws SQLException {
    List<KernelResult> profiled = new ArrayList<>();
    for (KernelResult r : results) {
      if (r.counters() != null && inserted.contains(r.id())) {
        profiled.add(r);
      }
    }
    if (profiled.isEmpty()) {
      return;
    }
    try (PreparedStatement s = c.prepareStatement("INSERT INTO result_counters (result_id, load_sectors_per_request,"
        + " model_load_sectors_per_request, store_sectors_per_request, model_store_sectors_per_request,"
        + " dram_bytes_read, model_dram_bytes_read, dram_bytes_written, model_dram_bytes_written, flagged, flags,"
        + " kernels, method) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (result_id) DO NOTHING")) {
      for (KernelResult r : profiled) {
        Counters k = r.counters();
        int p = 1;
        s.setObject(p++, r.id());
        for (Double figure : k.figures()) {
          if (figure == null) {
            s.setNull(p++, Types.DOUBLE);
          } else {
            s.setDouble(p++, figure);
          }
        }
        s.setBoolean(p++, k.flagged());
        s.setArray(p++, c.createArrayOf("text", k.flags().toArray(String[]::new)));
        s.setArray(p++, c.createArrayOf("text", k.kernels().toArray(String[]::new)));
        s.setString(p, k.method());
        s.addBatch();
      }
      s.executeBatch();
    }
  }

  /** The stored counters of {@code ids} (those that have any), as the table holds them. */
  public static Map<UUID, Counters> read(Database db, List<UUID> ids) {
    return db.inTransaction(c -> {
      Map<UUID, Counters> found = new LinkedHashMap<>();
      try (PreparedStatement s = c.prepareStatement("SELECT result_id, load_sectors_per_request,"
          + " model_load_sectors_per_request, store_sectors_per_request, model_store_sectors_per_request,"
          + " dram_bytes_read, model_dram_bytes_read, dram_bytes_written, model_dram_bytes_written, flagged, flags,"
          + " kernels, method FROM result_counters WHERE result_id = ANY (?)")) {
        s.setArray(1, c.createArrayOf("uuid", ids.toArray()));
        try (ResultSet rs = s.executeQuery()) {
          while (rs.next()) {
            found.put(rs.getObject(1, UUID.class), new Counters(figure(rs, 2), figure(rs, 3), figure(rs, 4),
                figure(rs, 5), figure(rs, 6), figure(rs, 7), figure(rs, 8), figure(rs, 9), rs.getBoolean(10),
                strings(rs.getArray(11)), strings(rs.getArray(12)), rs.getString(13)));
          }
        }
      }
      return found;
    });
  }

  private static Double figure(ResultSet rs, int column) throws SQLException {
    double v = rs.getDouble(column);
    return rs.wasNull() ? null : v;
  }

  private static List<String> strings(Array array) throws SQLException {
    return Arrays.asList((String[]) array.getArray());
  }
}
