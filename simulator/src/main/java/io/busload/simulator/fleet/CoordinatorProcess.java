package io.busload.simulator.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.protocol.JsonCodec;
import io.busload.simulator.os.ProcStats;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A real coordinator in a process of its own (embedded PostgreSQL in its data directory), so that its CPU and heap
 * are measured apart from the simulated fleet: CPU from {@code /proc}, the heap after each collection from its GC log.
 */
final class CoordinatorProcess implements AutoCloseable {
  private static final Pattern GC = Pattern.compile("^\\[(\\d+\\.\\d+)s].*Pause.* (\\d+)M->(\\d+)M\\((\\d+)M\\)");

  /** One collection: JVM uptime in seconds and the heap in use after it, in bytes. */
  record HeapAfterGc(double uptimeSeconds, long bytes) {}

  private final Process process;
  private final Path dataDir;
  private final Path gcLog;
  private final int httpPort;
  private final String token;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private CoordinatorProcess(Process process, Path dataDir, Path gcLog, int httpPort, String token) {
    this.process = process;
    this.dataDir = dataDir;
    this.gcLog = gcLog;
    this.httpPort = httpPort;
    this.token = token;
  }

  /**
   * Starts it and waits for its REST API (plain HTTP on loopback either way).
   *
   * @param bridgePort the agents' bridge, or -1 for none
   * @param tlsDir its member directory ({@code BUSLOAD_TLS_DIR}: mutual TLS on the bridge and the event bus), or null
   * @param heap its {@code -Xmx}
   */
  static CoordinatorProcess start(Path dir, String cluster, int clusterPort, int httpPort, int bridgePort, Path tlsDir,
      String heap) throws IOException, InterruptedException {
    Path data = dir.resolve("coordinator-data");
    Files.createDirectories(data);
    Path tokenFile = dir.resolve("api-token");
    Files.deleteIfExists(tokenFile);
    Path gcLog = dir.resolve("coordinator-gc.log");
    List<String> command = io.busload.simulator.os.ChildJvm.java();
    // The coordinator's own logging, as it runs in production (the simulator's class path holds several).
    String classPath = System.getProperty("java.class.path");
    java.util.Arrays.stream(classPath.split(java.io.File.pathSeparator))
        .filter(p -> p.contains("busload-coordinator")).findFirst()
        .ifPresent(jar -> command.add("-Dlogback.configurationFile=jar:file:" + Path.of(jar).toAbsolutePath()
            + "!/logback.xml"));
    command.addAll(List.of("-Xmx" + heap, "-Xlog:gc:file=" + gcLog + ":uptime", "-cp",
        classPath, "io.busload.coordinator.Main", "--data", data.toString(),
        "--http-port", Integer.toString(httpPort)));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(dir.resolve("coordinator.log").toFile());
    Map<String, String> env = builder.environment();
    env.put("BUSLOAD_CLUSTER_NAME", cluster);
    env.put("BUSLOAD_CLUSTER_PORT", Integer.toString(clusterPort));
    env.put("BUSLOAD_CLUSTER_MEMBERS", "127.0.0.1:" + clusterPort);
    env.put("BUSLOAD_EVENTBUS_PORT", "0");
    if (bridgePort >= 0) {
      env.put("BUSLOAD_BRIDGE_PORT", Integer.toString(bridgePort));
    } else {
      env.put("BUSLOAD_BRIDGE_PORT", "off");
    }
    env.put("BUSLOAD_FIRST_API_TOKEN_FILE", tokenFile.toString());
    env.remove("BUSLOAD_TLS");
    env.remove("BUSLOAD_REST_TLS");
    if (tlsDir != null) {
      env.put("BUSLOAD_TLS_DIR", tlsDir.toAbsolutePath().toString());
    } else {
      env.remove("BUSLOAD_TLS_DIR");
    }
    env.remove("BUSLOAD_DB_URL");
    Process process = builder.start();
    long end = System.nanoTime() + Duration.ofMinutes(4).toNanos();
    while (!Files.exists(tokenFile) || !up(httpPort)) {
      if (!process.isAlive() || System.nanoTime() > end) {
        process.destroyForcibly();
        throw new IllegalStateException("the coordinator did not start; see " + dir.resolve("coordinator.log"));
      }
      Thread.sleep(500);
    }
    return new CoordinatorProcess(process, data, gcLog, httpPort, Files.readString(tokenFile).strip());
  }

  private static boolean up(int port) {
    try {
      HttpResponse<Void> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + port + "/api/agents")).timeout(Duration.ofSeconds(5)).build(),
          HttpResponse.BodyHandlers.discarding());
      return r.statusCode() == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  long pid() {
    return process.pid();
  }

  /** The coordinator JVM's CPU and memory. */
  ProcStats jvm() {
    return ProcStats.of(process.pid()).orElse(new ProcStats(0, 0));
  }

  /** Embedded PostgreSQL's processes: the postmaster named in its pid file, and its children. */
  ProcStats postgres() {
    return ProcStats.sum(postgresPids());
  }

  List<Long> postgresPids() {
    try (Stream<Path> files = Files.walk(dataDir, 4)) {
      Optional<Path> pidFile = files.filter(p -> p.getFileName().toString().equals("postmaster.pid")).findFirst();
      if (pidFile.isEmpty()) {
        return List.of();
      }
      long postmaster = Long.parseLong(Files.readAllLines(pidFile.get()).getFirst().strip());
      List<Long> pids = new ArrayList<>(ProcStats.children(postmaster));
      pids.add(postmaster);
      return pids;
    } catch (IOException | RuntimeException e) {
      return List.of();
    }
  }

  /** Every collection so far, from the GC log. */
  List<HeapAfterGc> heapAfterGc() throws IOException {
    List<HeapAfterGc> list = new ArrayList<>();
    if (!Files.exists(gcLog)) {
      return list;
    }
    for (String line : Files.readAllLines(gcLog)) {
      Matcher m = GC.matcher(line);
      if (m.find()) {
        list.add(new HeapAfterGc(Double.parseDouble(m.group(1)), Long.parseLong(m.group(3)) << 20));
      }
    }
    return list;
  }

  /** JVM uptime now, on the GC log's clock. */
  double uptimeSeconds() {
    return process.info().startInstant().map(s -> (System.currentTimeMillis() - s.toEpochMilli()) / 1000.0)
        .orElse(Double.NaN);
  }

  JsonNode get(String path) throws IOException, InterruptedException {
    HttpResponse<InputStream> r = http.send(HttpRequest.newBuilder(URI.create(base() + path))
        .timeout(Duration.ofMinutes(2)).build(), HttpResponse.BodyHandlers.ofInputStream());
    try (InputStream body = r.body()) {
      if (r.statusCode() != 200) {
        throw new IOException("GET " + path + ": HTTP " + r.statusCode() + ": " + new String(body.readAllBytes()));
      }
      return JsonCodec.MAPPER.readTree(body);
    }
  }

  /** Streams a response to {@code consumer} (large result exports are not read whole). */
  InputStream stream(String path) throws IOException, InterruptedException {
    HttpResponse<InputStream> r = http.send(HttpRequest.newBuilder(URI.create(base() + path))
        .timeout(Duration.ofMinutes(5)).build(), HttpResponse.BodyHandlers.ofInputStream());
    if (r.statusCode() != 200) {
      throw new IOException("GET " + path + ": HTTP " + r.statusCode() + ": " + new String(r.body().readAllBytes()));
    }
    return r.body();
  }

  JsonNode post(String path, Object body) throws IOException, InterruptedException {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base() + path))
        .timeout(Duration.ofMinutes(2)).header("Authorization", "Bearer " + token)
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofByteArray(JsonCodec.MAPPER.writeValueAsBytes(body))).build(),
        HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() / 100 != 2) {
      throw new IOException("POST " + path + ": HTTP " + r.statusCode() + ": " + r.body());
    }
    return JsonCodec.MAPPER.readTree(r.body());
  }

  private String base() {
    return "http://127.0.0.1:" + httpPort;
  }

  /** Stops it as systemd would (SIGTERM: its shutdown hook stops PostgreSQL cleanly). */
  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }
}
