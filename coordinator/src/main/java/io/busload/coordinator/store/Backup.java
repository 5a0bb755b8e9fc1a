package io.busload.coordinator.store;

import io.busload.protocol.JsonCodec;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import org.flywaydb.core.api.MigrationVersion;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;

/**
 * A backup of the coordinator's database as PostgreSQL's own logical dump makes one: every table of the schema
 * (partitions through their parent) copied out with {@code COPY ... TO STDOUT} inside one {@code REPEATABLE READ,
 * READ ONLY} transaction, so every table is read from the same snapshot while results keep arriving, and the Flyway
 * schema version read from that snapshot too. The file is a zip: {@code manifest.json} ({@link Manifest}) and one
 * entry per table in COPY's text format, the format PostgreSQL guarantees to read back into the same column types.
 *
 * <p>{@link #restore} fills only a fresh database: it migrates the schema to the backup's version with the
 * coordinator's own Flyway migrations, then copies every table back with {@code COPY ... FROM STDIN} in one
 * transaction, so a restore that fails leaves no rows behind. A coordinator started on it afterwards migrates the
 * rest of the way as on any start.
 *
 * <p>The file holds the API tokens' hashes and the notification targets' secrets: it is written with mode 600.
 */
public final class Backup {
  /** The manifest's {@code format}: what a restore checks before anything else. */
  static final String FORMAT = "busload-backup";
  static final int FORMAT_VERSION = 1;
  static final String MANIFEST = "manifest.json";
  /** Flyway's own bookkeeping: restore rebuilds it by migrating, so it is never copied. */
  private static final String HISTORY = "flyway_schema_history";
  /**
   * Tables a migration writes a row into (the notification settings' one row): a database fresh from its
   * migrations holds these rows, so they do not make it one that holds data.
   */
  static final Set<String> SEEDED = Set.of("notification_settings");
  /** Bounds of range partitions, the only kind the schema uses: quoted literals, MINVALUE or MAXVALUE. */
  private static final String BOUND_VALUE = "(?:'[^'\\\\]*'|MINVALUE|MAXVALUE)";
  private static final Pattern BOUND = Pattern.compile("FOR VALUES FROM \\(" + BOUND_VALUE + "(?:, " + BOUND_VALUE
      + ")*\\) TO \\(" + BOUND_VALUE + "(?:, " + BOUND_VALUE + ")*\\)|DEFAULT");
  private static final Pattern NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

  private Backup() {}

  /** What the file holds, read first by {@link #restore}. */
  public record Manifest(String format, int formatVersion, String schemaVersion, Instant takenAt, String server,
      List<Table> tables) {
    /** Rows over all tables. */
    public long rows() {
      return tables.stream().mapToLong(Table::rows).sum();
    }
  }

  /** One table: its columns in COPY's order, its row count, and for a partitioned one its partitions. */
  public record Table(String name, List<String> columns, long rows, List<Partition> partitions) {}

  /** A partition as PostgreSQL states its bounds ({@code FOR VALUES FROM ('2026-11-01 00:00:00+00') TO (...)}). */
  public record Partition(String name, String bound) {}

  /** A backup or restore refused for a reason the operator can act on; the message names it. */
  public static final class Refused extends RuntimeException {
    Refused(String message) {
      super(message);
    }
  }

  /**
   * Writes a backup of {@code db} to {@code file}, created with mode 600 (it must not exist): the file is complete
   * when this returns.
   */
  public static Manifest write(Database db, Path file) {
    try {
      Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      try (OutputStream out = Files.newOutputStream(file, StandardOpenOption.WRITE)) {
        return write(db, out);
      } catch (RuntimeException | IOException e) {
        Files.deleteIfExists(file);
        throw e;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("backup to " + file + ": " + e.getMessage(), e);
    }
  }

  /** Writes a backup of {@code db} to {@code out} (a zip; {@code out} is left open). */
  public static Manifest write(Database db, OutputStream out) {
    return db.inTransaction(c -> {
      try (Statement s = c.createStatement()) {
        // pg_dump's snapshot: every COPY below reads the database as it was at the first one.
        s.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
      }
      String version = schemaVersion(c);
      if (version == null) {
        throw new Refused("the database holds no Busload schema (no " + HISTORY + "): nothing to back up");
      }
      List<Table> layout = tables(c);
      for (Table table : layout) {
        // As pg_dump does: a table cannot be dropped (a month of results aged out) while it is being read.
        Database.update(c, "LOCK TABLE " + quote(table.name()) + " IN ACCESS SHARE MODE", Database.Binder.NONE);
      }
      CopyManager copy = c.unwrap(PGConnection.class).getCopyAPI();
      ZipOutputStream zip = new ZipOutputStream(new FilterOutputStream(out) {
        @Override
        public void close() throws IOException {
          flush(); // the caller owns out
        }
      });
      List<Table> written = new ArrayList<>();
      try {
        for (Table table : layout) {
          zip.putNextEntry(new ZipEntry(entry(table.name())));
          long rows = copy.copyOut("COPY (SELECT " + columnList(table.columns()) + " FROM " + quote(table.name())
              + ") TO STDOUT", zip);
          zip.closeEntry();
          written.add(new Table(table.name(), table.columns(), rows, table.partitions()));
        }
        Manifest manifest = new Manifest(FORMAT, FORMAT_VERSION, version, Instant.now(),
            Database.first(c, "SHOW server_version", Database.Binder.NONE, rs -> rs.getString(1)).orElse(""), written);
        zip.putNextEntry(new ZipEntry(MANIFEST));
        zip.write(JsonCodec.toJson(manifest));
        zip.closeEntry();
        zip.close();
        return manifest;
      } catch (IOException e) {
        throw new UncheckedIOException("writing the backup: " + e.getMessage(), e);
      }
    });
  }

  /** The manifest of the backup in {@code file}, checked to be one this coordinator can read. */
  public static Manifest manifest(Path file) {
    try (ZipFile zip = new ZipFile(file.toFile())) {
      return manifest(zip, file);
    } catch (IOException e) {
      throw new Refused(file + " is not a Busload backup (not a readable zip: " + e.getMessage() + ")");
    }
  }

  private static Manifest manifest(ZipFile zip, Path file) throws IOException {
    ZipEntry entry = zip.getEntry(MANIFEST);
    if (entry == null) {
      throw new Refused(file + " is not a Busload backup: it has no " + MANIFEST);
    }
    Manifest manifest;
    try (InputStream in = zip.getInputStream(entry)) {
      manifest = JsonCodec.MAPPER.readValue(in, Manifest.class);
    } catch (IOException e) {
      throw new Refused(file + ": " + MANIFEST + " is not a backup's manifest: " + e.getMessage());
    }
    if (!FORMAT.equals(manifest.format()) || manifest.formatVersion() != FORMAT_VERSION
        || manifest.schemaVersion() == null || manifest.tables() == null) {
      throw new Refused(file + ": " + MANIFEST + " names format " + manifest.format() + " version "
          + manifest.formatVersion() + "; this coordinator reads " + FORMAT + " version " + FORMAT_VERSION);
    }
    return manifest;
  }

  /**
   * Fills the database of {@code settings} (the embedded one in {@code dataDir} when the settings say so) from the
   * backup in {@code file}. Refused, changing nothing, when the backup's schema is newer than this coordinator's
   * newest migration, when the database holds rows, or when its schema is newer than the backup's.
   */
  public static Manifest restore(DatabaseSettings settings, Path dataDir, Path file) {
    try (ZipFile zip = new ZipFile(file.toFile())) {
      Manifest manifest = manifest(zip, file);
      MigrationVersion wanted = MigrationVersion.fromVersion(manifest.schemaVersion());
      if (settings.embedded() && EmbeddedDatabase.running(dataDir)) {
        throw new Refused("a coordinator is running on " + dataDir + " (its PostgreSQL is up): restore fills only a"
            + " fresh coordinator; give it a new data folder (--data)");
      }
      try (Database db = Database.connect(settings, dataDir)) {
        Database.Migrations migrations = db.migrations();
        if (wanted.compareTo(migrations.newest()) > 0) {
          throw new Refused("the backup is of schema version " + wanted + ", newer than this coordinator's newest ("
              + migrations.newest() + "): restore it with the Busload release that wrote it, then upgrade");
        }
        if (migrations.current() != null) {
          Map<String, Long> holding = db.inTransaction(Backup::tablesWithRows);
          if (!holding.isEmpty()) {
            throw new Refused("the database is not empty (" + describe(holding) + "): restore fills only a fresh"
                + " coordinator; give it a new data folder (--data) or an empty database");
          }
          if (migrations.current().compareTo(wanted) > 0) {
            throw new Refused("the database's schema is at version " + migrations.current() + ", newer than the"
                + " backup's (" + wanted + "): restore into a new data folder or an empty database");
          }
        }
        db.migrate(manifest.schemaVersion());
        db.inTransaction(c -> {
          copyIn(c, zip, manifest, file);
          return null;
        });
      }
      return manifest;
    } catch (IOException e) {
      throw new Refused(file + " is not a Busload backup (not a readable zip: " + e.getMessage() + ")");
    }
  }

  private static void copyIn(Connection c, ZipFile zip, Manifest manifest, Path file) throws SQLException {
    Map<String, Table> saved = new LinkedHashMap<>();
    manifest.tables().forEach(t -> saved.put(t.name(), t));
    List<Table> here = tables(c);
    List<String> missing = here.stream().map(Table::name).filter(n -> !saved.containsKey(n)).toList();
    List<String> unknown = saved.keySet().stream()
        .filter(n -> here.stream().noneMatch(t -> t.name().equals(n))).toList();
    if (!missing.isEmpty() || !unknown.isEmpty()) {
      throw new Refused(file + " does not match schema version " + manifest.schemaVersion() + ": tables missing "
          + missing + ", tables unknown " + unknown);
    }
    // What the migrations wrote (a settings row; nothing else, as checked before migrating) makes way for the
    // backup's rows, the tables that refer to others first.
    for (Table table : here.reversed()) {
      Database.update(c, "DELETE FROM " + quote(table.name()), Database.Binder.NONE);
    }
    CopyManager copy = c.unwrap(PGConnection.class).getCopyAPI();
    for (Table table : here) {
      Table from = saved.get(table.name());
      if (!table.columns().containsAll(from.columns())) {
        throw new Refused(file + ": table " + table.name() + " has columns " + from.columns() + " in the backup, but "
            + table.columns() + " at schema version " + manifest.schemaVersion());
      }
      for (Partition partition : from.partitions() == null ? List.<Partition>of() : from.partitions()) {
        if (!NAME.matcher(partition.name()).matches() || !BOUND.matcher(partition.bound()).matches()) {
          throw new Refused(file + ": partition " + partition.name() + " of " + table.name()
              + " has a name or bound this coordinator does not make: " + partition.bound());
        }
        Database.update(c, "CREATE TABLE IF NOT EXISTS " + quote(partition.name()) + " PARTITION OF "
            + quote(table.name()) + " " + partition.bound(), Database.Binder.NONE);
      }
      ZipEntry entry = zip.getEntry(entry(table.name()));
      if (entry == null) {
        throw new Refused(file + " lacks the rows of table " + table.name());
      }
      long rows;
      try (InputStream in = zip.getInputStream(entry)) {
        rows = copy.copyIn("COPY " + quote(table.name()) + " (" + columnList(from.columns()) + ") FROM STDIN", in);
      } catch (IOException e) {
        throw new Refused(file + ": reading the rows of " + table.name() + ": " + e.getMessage());
      }
      if (rows != from.rows()) {
        throw new Refused(file + ": table " + table.name() + " gave " + rows + " rows; its manifest says "
            + from.rows());
      }
    }
    resetSequences(c);
  }

  /**
   * Every sequence that fills a column (serial or identity) set past the column's largest value, as pg_dump's
   * {@code setval} does, so that the next row does not reuse a restored key.
   */
  private static void resetSequences(Connection c) throws SQLException {
    List<String[]> owned = Database.list(c, """
        SELECT s.relname, t.relname, a.attname FROM pg_depend d
          JOIN pg_class s ON s.oid = d.objid AND s.relkind = 'S'
          JOIN pg_class t ON t.oid = d.refobjid
          JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = d.refobjsubid
          JOIN pg_namespace n ON n.oid = s.relnamespace
         WHERE d.classid = 'pg_class'::regclass AND d.refclassid = 'pg_class'::regclass
           AND d.deptype IN ('a', 'i') AND n.nspname = current_schema()""", Database.Binder.NONE,
        rs -> new String[] {rs.getString(1), rs.getString(2), rs.getString(3)});
    for (String[] o : owned) {
      Database.first(c, "SELECT setval(?::regclass, COALESCE((SELECT max(" + quote(o[2]) + ") FROM " + quote(o[1])
          + "), 0) + 1, false)", s -> s.setString(1, quote(o[0])), rs -> rs.getLong(1));
    }
  }

  /** The newest schema version Flyway applied, or null when there is no schema. */
  private static String schemaVersion(Connection c) throws SQLException {
    if (Database.first(c, "SELECT to_regclass(?) IS NOT NULL", s -> s.setString(1, HISTORY), rs -> rs.getBoolean(1))
        .orElse(false)) {
      return Database.first(c, "SELECT version FROM " + HISTORY + " WHERE success AND version IS NOT NULL"
          + " ORDER BY installed_rank DESC LIMIT 1", Database.Binder.NONE, rs -> rs.getString(1)).orElse(null);
    }
    return null;
  }

  /** Tables other than {@link #SEEDED} that hold a row, with their row counts. */
  static Map<String, Long> tablesWithRows(Connection c) throws SQLException {
    Map<String, Long> holding = new LinkedHashMap<>();
    for (Table table : tables(c)) {
      if (SEEDED.contains(table.name())) {
        continue;
      }
      long rows = Database.first(c, "SELECT count(*) FROM " + quote(table.name()), Database.Binder.NONE,
          rs -> rs.getLong(1)).orElse(0L);
      if (rows > 0) {
        holding.put(table.name(), rows);
      }
    }
    return holding;
  }

  private static String describe(Map<String, Long> holding) {
    StringBuilder text = new StringBuilder();
    holding.forEach((table, rows) -> text.append(text.isEmpty() ? "" : ", ").append(table).append(' ').append(rows)
        .append(rows == 1 ? " row" : " rows"));
    return text.toString();
  }

  /**
   * The schema's tables (a partitioned one as its parent, with its partitions; Flyway's history left out), each after
   * the tables its foreign keys point to, so that rows copied in that order never miss the row they refer to.
   */
  static List<Table> tables(Connection c) throws SQLException {
    record Rel(long oid, String name, boolean partitioned) {}
    List<Rel> rels = Database.list(c, """
        SELECT c.oid, c.relname, c.relkind = 'p' FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition
           AND c.relname <> ? ORDER BY c.relname""", s -> s.setString(1, HISTORY),
        rs -> new Rel(rs.getLong(1), rs.getString(2), rs.getBoolean(3)));
    Map<String, List<String>> refersTo = new LinkedHashMap<>();
    for (Rel rel : rels) {
      refersTo.put(rel.name(), Database.list(c, """
          SELECT DISTINCT r.relname FROM pg_constraint k JOIN pg_class r ON r.oid = k.confrelid
           WHERE k.contype = 'f' AND k.conrelid = ? AND k.conparentid = 0 AND k.confrelid <> k.conrelid""",
          s -> s.setLong(1, rel.oid()), rs -> rs.getString(1)));
    }
    List<Table> ordered = new ArrayList<>();
    List<String> placed = new ArrayList<>();
    while (placed.size() < rels.size()) {
      boolean progress = false;
      for (Rel rel : rels) {
        if (placed.contains(rel.name()) || !placed.containsAll(refersTo.get(rel.name()).stream()
            .filter(refersTo::containsKey).toList())) {
          continue;
        }
        List<String> columns = Database.list(c, """
            SELECT attname FROM pg_attribute WHERE attrelid = ? AND attnum > 0 AND NOT attisdropped
               AND attgenerated = '' ORDER BY attnum""", s -> s.setLong(1, rel.oid()), rs -> rs.getString(1));
        List<Partition> partitions = rel.partitioned() ? partitions(c, rel.oid(), rel.name()) : List.of();
        ordered.add(new Table(rel.name(), columns, 0, partitions));
        placed.add(rel.name());
        progress = true;
      }
      if (!progress) {
        throw new Refused("the schema's foreign keys form a cycle among " + rels.stream().map(Rel::name)
            .filter(n -> !placed.contains(n)).toList() + "; no copy order exists");
      }
    }
    return ordered;
  }

  private static List<Partition> partitions(Connection c, long parent, String name) throws SQLException {
    List<Partition> partitions = new ArrayList<>();
    try (PreparedStatement s = c.prepareStatement("""
        SELECT p.relname, pg_get_expr(p.relpartbound, p.oid), p.relkind = 'p' FROM pg_inherits i
          JOIN pg_class p ON p.oid = i.inhrelid WHERE i.inhparent = ? ORDER BY p.relname""")) {
      s.setLong(1, parent);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          if (rs.getBoolean(3)) {
            throw new Refused("partition " + rs.getString(1) + " of " + name + " is itself partitioned; a backup"
                + " copies one level of partitions");
          }
          partitions.add(new Partition(rs.getString(1), rs.getString(2)));
        }
      }
    }
    return partitions;
  }

  private static String entry(String table) {
    return "tables/" + table + ".copy";
  }

  private static String columnList(List<String> columns) {
    return String.join(", ", columns.stream().map(Backup::quote).toList());
  }

  /** An identifier quoted for SQL, as {@code quote_ident} would. */
  static String quote(String identifier) {
    return '"' + identifier.replace("\"", "\"\"") + '"';
  }
}
