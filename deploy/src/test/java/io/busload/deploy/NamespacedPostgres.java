package io.busload.deploy;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL server inside a network namespace, for coordinators in other namespaces to share. A process cannot
 * start a server in another namespace, so a small JVM is started there ({@code ip netns exec NS java ... main}) and
 * it starts the embedded server as {@link FleetFaults#sharedPostgres} does (fsync on), listening on the namespace's
 * loopback and on {@code address}, with {@code peers} allowed in pg_hba.conf. It stops the server when its stdin
 * closes; {@link #close} does that and then kills a server that is left over.
 */
final class NamespacedPostgres implements AutoCloseable {
  static final String READY = "namespaced postgres ready";
  final String address;
  final int port;
  private final Path dir;
  private final Path log;
  private final Process process;

  NamespacedPostgres(String namespace, String address, String peers, int port, Path dir, Path log)
      throws IOException {
    this.address = address;
    this.port = port;
    this.dir = dir;
    this.log = log;
    List<String> command = new ArrayList<>(NetnsPair.in(namespace));
    command.addAll(List.of(ProcessHandle.current().info().command().orElse("java"), "-Xmx256m", "-cp",
        System.getProperty("java.class.path"), NamespacedPostgres.class.getName(), dir.toString(),
        String.valueOf(port), address, peers));
    process = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
  }

  void awaitReady(int seconds) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (System.nanoTime() < deadline) {
      if (Files.exists(log) && Files.readString(log, StandardCharsets.UTF_8).contains(READY)) {
        return;
      }
      if (!process.isAlive()) {
        throw new IOException("namespaced PostgreSQL exited " + process.exitValue() + ": " + Files.readString(log));
      }
      Thread.sleep(250);
    }
    throw new IOException("namespaced PostgreSQL not ready in " + seconds + " s: " + Files.readString(log));
  }

  boolean alive() {
    return process.isAlive();
  }

  java.util.Map<String, String> database() {
    return java.util.Map.of("BUSLOAD_DB_URL", "jdbc:postgresql://" + address + ":" + port + "/postgres",
        "BUSLOAD_DB_USER", "postgres", "BUSLOAD_DB_PASSWORD", "postgres");
  }

  @Override
  public void close() throws IOException, InterruptedException {
    process.getOutputStream().close();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
    // A server the JVM could not stop (it was killed) still holds the directory: stop that one only.
    Path pidFile = dir.resolve("postmaster.pid");
    if (Files.exists(pidFile)) {
      long pid = Long.parseLong(Files.readAllLines(pidFile).getFirst().trim());
      Optional<ProcessHandle> left = ProcessHandle.of(pid);
      if (left.isPresent() && left.get().info().commandLine().orElse("").contains("postgres")) {
        left.get().destroy();
        left.get().onExit().orTimeout(30, TimeUnit.SECONDS).exceptionally(e -> null).join();
      }
    }
  }

  /** Runs inside the namespace: DIR PORT ADDRESS PEERS (a CIDR). */
  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    Files.createDirectories(dir);
    EmbeddedPostgres postgres = EmbeddedPostgres.builder().setDataDirectory(dir).setCleanDataDirectory(false)
        .setPort(Integer.parseInt(args[1]))
        // Loopback too: the library checks the server through localhost.
        .setServerConfig("listen_addresses", "127.0.0.1," + args[2])
        .setServerConfig("fsync", "on").setServerConfig("synchronous_commit", "on")
        .start();
    Files.writeString(dir.resolve("pg_hba.conf"), "host all all " + args[3] + " trust\n", StandardCharsets.UTF_8,
        java.nio.file.StandardOpenOption.APPEND);
    try (Connection c = postgres.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
      s.execute("SELECT pg_reload_conf()");
    }
    System.out.println(READY + " on " + args[2] + ":" + args[1]);
    System.out.flush();
    while (System.in.read() >= 0) {
      // until the test closes stdin
    }
    postgres.close();
    System.out.println("namespaced postgres stopped");
  }
}
