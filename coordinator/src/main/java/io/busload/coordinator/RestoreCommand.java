package io.busload.coordinator;

import io.busload.coordinator.store.Backup;
import io.busload.coordinator.store.DatabaseSettings;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code ./busload restore FILE}: fills a fresh coordinator's database from a backup of {@code ./busload backup}. It
 * works on the database itself, with no coordinator running: a running coordinator has already migrated its schema
 * to its newest and written rows of its own, while a restore must lay the backup's rows into the backup's schema
 * version first (a coordinator started afterwards migrates forward, with a backup before it does).
 */
@Command(name = "restore", mixinStandardHelpOptions = true,
    description = {"Fill a fresh coordinator from a backup of ./busload backup, with no coordinator running on it:"
        + " the embedded PostgreSQL of a new data folder, or the empty database of BUSLOAD_DB_URL"
        + " (with BUSLOAD_DB_USER, BUSLOAD_DB_PASSWORD).",
        "Refused, changing nothing, when the database holds rows, or when the backup's schema is newer than this"
            + " release's."},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:restored", "1:refused or failed: the message says why", "2:wrong usage"})
public final class RestoreCommand implements Callable<Integer> {
  @Spec
  CommandLine.Model.CommandSpec spec;

  @Parameters(index = "0", paramLabel = "FILE", description = "The backup (a zip from ./busload backup)")
  Path file;

  @Option(names = "--data", paramLabel = "DIR", description = "The new coordinator's data folder (env BUSLOAD_DATA;"
      + " ./busload sets it to .busload/data; default ~/.busload/coordinator)")
  Path data;

  /** Where BUSLOAD_DB_URL and BUSLOAD_DATA are read from: the process's environment. */
  Map<String, String> env = System.getenv();

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  static CommandLine commandLine() {
    return new CommandLine(new RestoreCommand());
  }

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (!Files.isRegularFile(file)) {
      throw new CommandLine.ParameterException(spec.commandLine(), "FILE: no such file: " + file);
    }
    DatabaseSettings database;
    Path dataDir;
    try {
      database = DatabaseSettings.fromEnvironment(env);
      dataDir = data != null ? data : env.get("BUSLOAD_DATA") != null && !env.get("BUSLOAD_DATA").isBlank()
          ? Path.of(env.get("BUSLOAD_DATA").strip()) : Path.of(System.getProperty("user.home"), ".busload", "coordinator");
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    try {
      Backup.Manifest manifest = Backup.restore(database, dataDir, file);
      out.println("busload restore: " + manifest.rows() + " rows of schema version " + manifest.schemaVersion()
          + " (backup taken " + manifest.takenAt() + ") restored into " + (database.embedded()
          ? "the embedded PostgreSQL of " + dataDir : database) + "; start the coordinator on it");
      out.flush();
      return 0;
    } catch (Backup.Refused e) {
      err.println("busload restore: refused: " + e.getMessage());
    } catch (RuntimeException e) {
      err.println("busload restore: failed: " + e.getMessage());
    }
    err.flush();
    return 1;
  }
}
