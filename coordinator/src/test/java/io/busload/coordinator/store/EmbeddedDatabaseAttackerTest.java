package io.busload.coordinator.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded PostgreSQL played against by a local user of the coordinator's host: another OS account trying to
 * log in over TCP and over the server's socket, and anyone who can write to the JVM's temp directory planting a
 * {@code postgres} where the embedded library unpacks its binaries by default.
 */
class EmbeddedDatabaseAttackerTest {
  /** Where the store keeps the database's password (in the data folder, owner only). */
  private static final String SECRET_FILE = "postgres-password";
  /** The store's own folder for the binaries and the socket (in the data folder, owner only). */
  private static final String PRIVATE_FOLDER = "postgres-run";

  /** A child JVM (clean library state, its own temp directory): starts the store on {@code args[0]} and stops. */
  public static void main(String[] args) throws Exception {
    try (EmbeddedDatabase database = EmbeddedDatabase.start(Path.of(args[0]));
        Connection c = connect(database.settings(), database.settings().password())) {
      System.out.println("started " + c.getMetaData().getDatabaseProductVersion());
    }
  }

  @Test
  void login_wrongOrNoPassword_refusedOverTcp(@TempDir Path data) throws Exception {
    try (EmbeddedDatabase database = EmbeddedDatabase.start(data)) {
      DatabaseSettings settings = database.settings();

      assertThatThrownBy(() -> connect(settings, null).close()).isInstanceOf(SQLException.class)
          .hasMessageContaining("password");
      assertThatThrownBy(() -> connect(settings, "postgres").close()).isInstanceOf(SQLException.class)
          .hasMessageContaining("password authentication failed");
      try (Connection c = connect(settings, settings.password())) {
        assertThat(c.isValid(5)).isTrue();
      }
    }
  }

  @Test
  void secret_generatedInTheDataFolder_ownerOnlyAndReadBackOnRestart(@TempDir Path data) throws Exception {
    String first;
    try (EmbeddedDatabase database = EmbeddedDatabase.start(data)) {
      first = database.settings().password();
    }
    Path secret = data.resolve(SECRET_FILE);
    assertThat(Files.getPosixFilePermissions(secret)).containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ,
        PosixFilePermission.OWNER_WRITE);
    assertThat(first).hasSizeGreaterThanOrEqualTo(32).isEqualTo(Files.readString(secret).strip());
    assertThat(Files.readString(data.resolve("postgres/pg_hba.conf")).lines()
        .filter(l -> !l.isBlank() && !l.startsWith("#")).map(l -> l.split("\\s+")[l.split("\\s+").length - 1]))
        .containsOnly("scram-sha-256");

    try (EmbeddedDatabase again = EmbeddedDatabase.start(data);
        Connection c = connect(again.settings(), first)) {
      assertThat(again.settings().password()).isEqualTo(first);
      assertThat(c.isValid(5)).isTrue();
    }
  }

  /** A data folder whose cluster was made with trust and no password: its next start closes it, keeping its rows. */
  @Test
  void start_clusterMadeWithoutAPassword_passwordRequiredFromItsNextStartRowsKept(@TempDir Path data) throws Exception {
    try (io.zonky.test.db.postgres.embedded.EmbeddedPostgres open = io.zonky.test.db.postgres.embedded.EmbeddedPostgres
        .builder().setDataDirectory(data.resolve("postgres")).setCleanDataDirectory(false).start();
        Connection c = open.getPostgresDatabase().getConnection()) {
      c.createStatement().execute("CREATE TABLE kept (id int PRIMARY KEY); INSERT INTO kept VALUES (42)");
    }

    try (EmbeddedDatabase database = EmbeddedDatabase.start(data)) {
      DatabaseSettings settings = database.settings();

      assertThatThrownBy(() -> connect(settings, null).close()).isInstanceOf(SQLException.class)
          .hasMessageContaining("password");
      try (Connection c = connect(settings, settings.password());
          java.sql.ResultSet rows = c.createStatement().executeQuery("SELECT id FROM kept")) {
        assertThat(rows.next()).isTrue();
        assertThat(rows.getInt(1)).isEqualTo(42);
      }
    }
  }

  /**
   * Another account on the host, made here with useradd (root only) and removed after, runs the system's psql with
   * no password over TCP and over the socket, where the server puts it and where PostgreSQL puts it by default.
   */
  @Test
  void psql_anotherOsUser_cannotLogInOverTcpOrTheSocket(@TempDir Path parent) throws Exception {
    assumeTrue("root".equals(System.getProperty("user.name")),
        "needs root to make another OS user (useradd); run ./busload test --full as root");
    Path psql = Path.of("/usr/bin/psql");
    assumeTrue(Files.isExecutable(psql) && Files.isExecutable(Path.of("/usr/sbin/useradd")),
        "needs /usr/bin/psql and /usr/sbin/useradd on the host");
    // The data folder as an operator might leave it, readable by all: only what the store makes private protects it.
    Files.setPosixFilePermissions(parent, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path data = parent.resolve("coordinator");
    Files.createDirectories(data);
    Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwxr-xr-x"));
    String user = "bl-probe-" + UUID.randomUUID().toString().substring(0, 8);
    run(List.of("/usr/sbin/useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", user));
    try (EmbeddedDatabase database = EmbeddedDatabase.start(data)) {
      String port = database.settings().jdbcUrl().replaceAll("^.*://[^:/]+:(\\d+)/.*$", "$1");
      assertThat(data.resolve(PRIVATE_FOLDER).resolve(".s.PGSQL." + port)).as("the server's socket").exists();
      List<String> socketDirs = new ArrayList<>(List.of("/tmp", "/var/run/postgresql"));
      socketDirs.add(data.resolve(PRIVATE_FOLDER).toString());
      for (String host : socketDirs) {
        if (Files.exists(Path.of(host, ".s.PGSQL." + port))) {
          Probe probe = psqlAs(user, host, port);
          assertThat(probe.exit()).as("psql over the socket in %s: %s", host, probe.output()).isNotZero();
          assertThat(probe.output()).doesNotContain("probe-ok");
        }
      }
      Probe tcp = psqlAs(user, "127.0.0.1", port);
      assertThat(tcp.exit()).as("psql over TCP: %s", tcp.output()).isNotZero();
      assertThat(tcp.output()).contains("password").doesNotContain("probe-ok");
      Probe readSecret = as(user, List.of("/bin/cat", data.resolve(SECRET_FILE).toString()));
      assertThat(readSecret.exit()).as("reading the secret: %s", readSecret.output()).isNotZero();
      assertThat(readSecret.output()).doesNotContain(database.settings().password());
    } finally {
      run(List.of("/usr/sbin/userdel", user));
    }
  }

  /**
   * The library unpacks its binaries into {@code <java.io.tmpdir>/embedded-pg/PG-<md5 of the archive>} and runs
   * whatever is there once a {@code .exists} file says it was unpacked. A local user plants one there first; the
   * store must never run it (nor use that folder at all).
   */
  @Test
  void start_postgresPlantedInTheSharedTempFolder_neverRun(@TempDir Path tmp) throws Exception {
    Path shared = tmp.resolve("java-tmp");
    Path marker = tmp.resolve("planted-binary-ran");
    Path planted = shared.resolve("embedded-pg").resolve("PG-" + archiveMd5()).resolve("bin");
    Files.createDirectories(planted);
    for (String binary : List.of("initdb", "pg_ctl", "postgres")) {
      Path fake = planted.resolve(binary);
      Files.writeString(fake, "#!/bin/sh\necho \"$0 $*\" >> " + marker + "\nexit 1\n");
      Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
    Files.createFile(planted.getParent().resolve(".exists"));
    Path data = tmp.resolve("data");

    Process child = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"),
        "-Djava.io.tmpdir=" + shared, "-cp", System.getProperty("java.class.path"),
        EmbeddedDatabaseAttackerTest.class.getName(), data.toString()).redirectErrorStream(true).start();
    String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(child.waitFor(180, TimeUnit.SECONDS)).isTrue();

    assertThat(marker).as("the planted binary ran: %s", output).doesNotExist();
    assertThat(child.exitValue()).as(output).isZero();
    assertThat(output).contains("started ");
    assertThat(Files.list(shared.resolve("embedded-pg")).map(p -> p.getFileName().toString()))
        .as("nothing made in the shared temp folder").containsExactly("PG-" + archiveMd5());
  }

  private record Probe(int exit, String output) {}

  private static Probe psqlAs(String user, String host, String port) throws Exception {
    return as(user, List.of("/usr/bin/psql", "-X", "-w", "-h", host, "-p", port, "-U", "postgres", "-d", "postgres",
        "-tAc", "SELECT 'probe-ok'"));
  }

  /** {@code command} as {@code user}, with no password in its environment and a home it cannot read nothing from. */
  private static Probe as(String user, List<String> command) throws Exception {
    List<String> full = new ArrayList<>(List.of("/usr/sbin/runuser", "-u", user, "--", "/usr/bin/env", "-i",
        "PATH=/usr/bin:/bin", "HOME=/nonexistent"));
    full.addAll(command);
    Process p = new ProcessBuilder(full).redirectErrorStream(true).directory(Path.of("/").toFile()).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return new Probe(p.exitValue(), output);
  }

  private static void run(List<String> command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("%s: %s", command, output).isZero();
  }

  /** The name the library gives the folder of this archive's binaries. */
  private static String archiveMd5() throws Exception {
    MessageDigest md5 = MessageDigest.getInstance("MD5");
    try (InputStream in = DefaultPostgresBinaryResolver.INSTANCE.getPgBinary("Linux", "x86_64")) {
      byte[] buffer = new byte[1 << 16];
      for (int n; (n = in.read(buffer)) > 0; ) {
        md5.update(buffer, 0, n);
      }
    }
    return HexFormat.of().formatHex(md5.digest());
  }

  private static Connection connect(DatabaseSettings settings, String password) throws SQLException {
    java.util.Properties properties = new java.util.Properties();
    properties.setProperty("user", settings.user());
    if (password != null) {
      properties.setProperty("password", password);
    }
    return DriverManager.getConnection(settings.jdbcUrl(), properties);
  }
}
