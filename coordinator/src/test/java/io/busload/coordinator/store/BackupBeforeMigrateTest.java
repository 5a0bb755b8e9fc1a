package io.busload.coordinator.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.coordinator.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A coordinator migrates its schema only after writing a backup into {@code DATA/backups}: when migrations are
 * pending on a database that holds rows, and only then; {@code BUSLOAD_BACKUP_BEFORE_MIGRATE=off} skips it.
 */
class BackupBeforeMigrateTest {
  /** The schema one release back: the newest migration is pending on it. */
  private static final String OLDER = "14";

  @TempDir Path data;

  @Test
  void open_pendingMigrationsOnRows_backupOfTheOldSchemaWrittenFirstWithItsRows() throws Exception {
    DatabaseSettings settings = TestDatabase.fresh();
    olderWithOneToken(settings);

    Database.open(settings, data).close();

    List<Path> backups = backups();
    assertThat(backups).hasSize(1);
    assertThat(backups.getFirst().getFileName().toString()).startsWith("before-migrating-schema-" + OLDER + "-");
    assertThat(Files.getPosixFilePermissions(backups.getFirst())).isEqualTo(PosixFilePermissions.fromString("rw-------"));
    Backup.Manifest manifest = Backup.manifest(backups.getFirst());
    assertThat(manifest.schemaVersion()).isEqualTo(OLDER);
    assertThat(manifest.tables().stream().filter(t -> t.name().equals("api_tokens")).findFirst().orElseThrow().rows())
        .isEqualTo(1);
    assertThat(manifest.tables()).noneMatch(t -> t.name().equals("notification_targets")); // a V15 table

    // Nothing pending on the next start: no second backup.
    Database.open(settings, data).close();
    assertThat(backups()).hasSize(1);
  }

  @Test
  void open_twoStoresMigratingFromOneSchemaInOneSecond_bothBackupsKept() throws Exception {
    DatabaseSettings first = TestDatabase.fresh();
    DatabaseSettings second = TestDatabase.fresh();
    olderWithOneToken(first);
    olderWithOneToken(second);

    // Backups are named by the second they are taken in; two stores of one data folder can migrate within one.
    Database.open(first, data).close();
    Database.open(second, data).close();

    assertThat(backups()).hasSize(2)
        .allSatisfy(b -> assertThat(Backup.manifest(b).schemaVersion()).isEqualTo(OLDER));
  }

  @Test
  void open_noMigrationPendingOrNoRows_noBackup() throws Exception {
    DatabaseSettings empty = TestDatabase.fresh();
    Database.open(empty, data, OLDER).close();
    Database.open(empty, data).close(); // pending, but nothing to lose
    DatabaseSettings current = TestDatabase.fresh();
    Database.open(current, data).close();
    insertToken(current);
    Database.open(current, data).close(); // rows, nothing pending

    assertThat(data.resolve("backups")).doesNotExist();
  }

  @Test
  void open_backupBeforeMigrateOff_migratesWithoutBackup() throws Exception {
    DatabaseSettings settings = TestDatabase.fresh();
    olderWithOneToken(settings);
    DatabaseSettings off = DatabaseSettings.fromEnvironment(java.util.Map.of("BUSLOAD_DB_URL", settings.jdbcUrl(),
        "BUSLOAD_DB_USER", settings.user(), "BUSLOAD_DB_PASSWORD", settings.password(),
        "BUSLOAD_BACKUP_BEFORE_MIGRATE", "off"));

    Database.open(off, data).close();

    assertThat(data.resolve("backups")).doesNotExist();
    try (Connection c = TestDatabase.connect(settings)) {
      assertThat(TestDatabase.first(c, "SELECT to_regclass('notification_targets') IS NOT NULL")).isEqualTo("t");
    }
  }

  private void olderWithOneToken(DatabaseSettings settings) throws SQLException {
    Database.open(settings, data, OLDER).close();
    insertToken(settings);
  }

  private static void insertToken(DatabaseSettings settings) throws SQLException {
    try (Connection c = TestDatabase.connect(settings); Statement s = c.createStatement()) {
      s.execute("INSERT INTO api_tokens (name, sha256, scopes, created_at, created_by)"
          + " VALUES ('ci', sha256('x'::bytea), ARRAY['read'], now(), 'tests')");
    }
  }

  private List<Path> backups() throws Exception {
    Path folder = data.resolve("backups");
    if (!Files.isDirectory(folder)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(folder)) {
      return files.toList();
    }
  }
}
