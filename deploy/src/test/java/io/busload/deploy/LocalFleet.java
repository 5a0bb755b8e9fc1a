package io.busload.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.protocol.JsonCodec;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The three processes of a fleet, started from the built bundle exactly as {@code ./busload up} starts them,
 * but on a cluster of their own (unique name, free ports, loopback) so a developer's running fleet is never met.
 */
final class LocalFleet implements AutoCloseable {
  final Path bundle = Path.of(System.getProperty("busload.bundle", "target/bundle"));
  final Path logs;
  final Path data;
  final String clusterName = "busload-e2e-" + UUID.randomUUID();
  final int clusterPort = freeRange();
  final int coordinatorPort = freePort();
  final int dashboardPort = freePort();
  /** The coordinator's agent bridge, which agents find through the members, as {@code ./busload up}'s do. */
  final int bridgePort = freePort();
  final String agentId = "e2e-agent-" + UUID.randomUUID().toString().substring(0, 8);
  final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final Map<String, Process> processes = new HashMap<>();
  /**
   * The REST token of this fleet's writes. Every coordinator reads the hash from {@code api-tokens}
   * ({@code BUSLOAD_API_TOKENS_FILE}); the dashboard reads the token from {@code api-token}
   * ({@code BUSLOAD_API_TOKEN_FILE}), as the units hand them over.
   */
  static final String TOKEN = "e2e-" + UUID.randomUUID() + UUID.randomUUID();
  final Path tokensFile;
  final Path tokenFile;

  LocalFleet(Path work) throws IOException {
    logs = Files.createDirectories(work.resolve("logs"));
    data = Files.createDirectories(work.resolve("data"));
    tokensFile = Files.writeString(work.resolve("api-tokens"), "e2e:" + sha256Hex(TOKEN) + "\n");
    tokenFile = Files.writeString(work.resolve("api-token"), TOKEN + "\n");
  }

  static String sha256Hex(String token) {
    try {
      return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
          .digest(token.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  String coordinatorUrl() {
    return "http://127.0.0.1:" + coordinatorPort;
  }

  String dashboardUrl() {
    return "http://127.0.0.1:" + dashboardPort;
  }

  void startCoordinator() throws IOException {
    start("coordinator", List.of("-cp", classpath("coordinator.jar"), "io.busload.coordinator.Main",
        "--data", data.toString(), "--http-port", String.valueOf(coordinatorPort)), Map.of());
  }

  /**
   * A coordinator under its own name, data directory and REST port (two coordinators on one store),
   * started through {@code prefix} (for example {@code ip netns exec NS}); {@code env} overrides the cluster
   * settings and names the database ({@code BUSLOAD_DB_URL}).
   */
  void startCoordinator(String name, Path dataDir, int httpPort, List<String> prefix, Map<String, String> env)
      throws IOException {
    start(name, prefix, List.of("-cp", classpath("coordinator.jar"), "io.busload.coordinator.Main",
        "--data", dataDir.toString(), "--http-port", String.valueOf(httpPort)), env);
  }

  /**
   * An agent's CPU device measures with one thread per processor the JVM sees, as hard as it can for each case's
   * time; these tests are about delivery, not the CPU's speed, and several run side by side on a small machine, so
   * their agents see one processor. A case still takes its time (the CPU's cap is in seconds), with half the load.
   */
  private static final String ONE_CPU = "-XX:ActiveProcessorCount=1";

  /**
   * The processes live for a minute or two and are judged on what they deliver, not on how fast they compute: the
   * quick compiler alone spends far less CPU warming up than the optimising one would, on a machine the tests share.
   */
  private static final String QUICK_JIT = "-XX:TieredStopAtLevel=1";

  /** An agent serving the CPU only, its outbox where the test can count the files in it. */
  void startCpuAgent(String name, String id, Path outbox, List<String> prefix, Map<String, String> env)
      throws IOException {
    Map<String, String> all = new HashMap<>(env);
    all.put("BUSLOAD_AGENT_ID", id);
    all.put("BUSLOAD_OUTBOX", outbox.toString());
    start(name, prefix, List.of(ONE_CPU, "-cp", classpath("agent.jar"), "io.busload.agent.Main", "agent", "--device",
        "cpu"), all);
  }

  void startAgent() throws IOException {
    start("agent", List.of(ONE_CPU, "-cp", classpath("agent.jar"), "io.busload.agent.Main", "agent"),
        Map.of("BUSLOAD_AGENT_ID", agentId));
  }

  /** A Java process of another build (the previous release's agent) with this fleet's settings and {@code env}. */
  void startJava(String name, List<String> args, Map<String, String> env) throws IOException {
    start(name, List.of(), args, env);
  }

  void startDashboard() throws IOException {
    start("dashboard", List.of("-jar", bundle.resolve("dashboard.jar").toString()),
        Map.of("SERVER_PORT", String.valueOf(dashboardPort), "BUSLOAD_COORDINATOR_URL", coordinatorUrl()));
  }

  /** kill -9: what a crash or a power cut does, so nothing gets a chance to flush. */
  void kill(String name) throws InterruptedException {
    Process process = processes.remove(name);
    if (process != null) {
      process.destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
    }
  }

  /** SIGSTOP / SIGCONT: a process that hangs (and then carries on) without closing a single connection. */
  void signal(String name, String signal) throws IOException, InterruptedException {
    Process process = processes.get(name);
    if (process == null) {
      throw new IllegalStateException(name + " is not running");
    }
    int exit = new ProcessBuilder("kill", "-" + signal, String.valueOf(process.pid())).inheritIO().start().waitFor();
    if (exit != 0) {
      throw new IllegalStateException("kill -" + signal + " " + name + " exited " + exit);
    }
  }

  /** Processes that exited although the test did not kill them. */
  List<String> exited() {
    return processes.entrySet().stream().filter(e -> !e.getValue().isAlive()).map(Map.Entry::getKey).sorted().toList();
  }

  boolean alive(String name) {
    Process process = processes.get(name);
    return process != null && process.isAlive();
  }

  HttpResponse<String> get(String url, String accept) throws IOException, InterruptedException {
    return http.send(HttpRequest.newBuilder(URI.create(url)).header("Accept", accept)
        .timeout(Duration.ofSeconds(20)).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> post(String url, String json) throws IOException, InterruptedException {
    return post(url, json, "Bearer " + TOKEN);
  }

  /** With {@code authorization} as the header's value, or none when null. */
  HttpResponse<String> post(String url, String json, String authorization) throws IOException, InterruptedException {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json");
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return http.send(request
        .timeout(Duration.ofSeconds(20)).POST(HttpRequest.BodyPublishers.ofString(json)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The coordinator's answer to a GET of {@code path} ({@code /api/...}) as JSON. */
  JsonNode json(String path) throws IOException, InterruptedException {
    return JsonCodec.MAPPER.readTree(get(coordinatorUrl() + path, "application/json").body());
  }

  /** A stride sweep of 65,536 elements on {@code deviceId}, created through the REST API; its id. */
  String strideSweep(String deviceId) throws IOException, InterruptedException {
    HttpResponse<String> created = post(coordinatorUrl() + "/api/sweeps",
        "{\"suite\":\"stride\",\"devices\":[\"" + deviceId + "\"],\"options\":{\"elements\":\"65536\"}}");
    if (created.statusCode() != 201) {
      throw new AssertionError("sweep not created: " + created.statusCode() + " " + created.body());
    }
    return JsonCodec.MAPPER.readTree(created.body()).get("id").asText();
  }

  /** The sweep's view once it is DONE, null before. */
  JsonNode sweepIfDone(String sweepId) throws IOException, InterruptedException {
    JsonNode sweep = json("/api/sweeps/" + sweepId);
    return "DONE".equals(sweep.path("state").asText()) ? sweep : null;
  }

  /** The id of {@code agentId}'s CPU device when {@code agents} (the REST API's agent list) has it online, else null. */
  static String onlineCpuDevice(JsonNode agents, String agentId) {
    for (JsonNode agent : agents) {
      if (agentId.equals(agent.path("agentId").asText()) && agent.path("online").asBoolean()) {
        for (JsonNode device : agent.path("devices")) {
          if ("cpu".equals(device.path("kind").asText())) {
            return device.path("id").asText();
          }
        }
      }
    }
    return null;
  }

  String log(String name) {
    try {
      return Files.readString(logs.resolve(name + ".log"));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  private void start(String name, List<String> args, Map<String, String> extraEnv) throws IOException {
    start(name, List.of(), args, extraEnv);
  }

  private void start(String name, List<String> prefix, List<String> args, Map<String, String> extraEnv)
      throws IOException {
    List<String> command = new ArrayList<>(prefix);
    command.add(ProcessHandle.current().info().command().orElse("java"));
    command.addAll(Arrays.asList(System.getProperty("busload.jvmFlags", "--enable-native-access=ALL-UNNAMED")
        .trim().split("\\s+")));
    command.add("-Xmx768m");
    command.add(QUICK_JIT);
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(logs.resolve(name + ".log").toFile()));
    Map<String, String> env = builder.environment();
    env.put("BUSLOAD_CLUSTER_NAME", clusterName);
    env.put("BUSLOAD_CLUSTER_HOST", "127.0.0.1");
    env.put("BUSLOAD_CLUSTER_PORT", String.valueOf(clusterPort));
    env.put("BUSLOAD_CLUSTER_MEMBERS", "127.0.0.1");
    env.put("BUSLOAD_EVENTBUS_PORT", "0");
    env.put("BUSLOAD_BRIDGE_PORT", String.valueOf(bridgePort));
    env.put("BUSLOAD_API_TOKENS_FILE", tokensFile.toString());
    env.put("BUSLOAD_API_TOKEN_FILE", tokenFile.toString());
    env.putAll(extraEnv);
    processes.put(name, builder.start());
  }

  private String classpath(String jar) {
    return bundle.resolve(jar) + java.io.File.pathSeparator + bundle.resolve("lib") + "/*";
  }

  /**
   * A port for a process the test starts next. The integration tests run in several JVMs at once and bind their
   * ports seconds after choosing them, so a port the kernel hands out (a bind to port 0) may be handed to another
   * JVM meanwhile. These come from below the kernel's ephemeral range instead, free when chosen, and each is
   * claimed by a file that only one JVM can create, so no two fleets of one build share a port.
   */
  static int freePort() {
    return claim(1);
  }

  /** A port whose next 20 are free and claimed too: Hazelcast tries the range. */
  private static int freeRange() {
    return claim(21);
  }

  private static final Path CLAIMS = Path.of("target", "port-claims");
  private static final int LOWEST = 20000;
  /** Linux's ephemeral ports start here unless a machine is set otherwise. */
  private static final int EPHEMERAL = 32768;

  private static int claim(int count) {
    try {
      Files.createDirectories(CLAIMS);
      for (int attempt = 0; attempt < 500; attempt++) {
        int base = ThreadLocalRandom.current().nextInt(LOWEST, EPHEMERAL - count);
        List<Path> claimed = new ArrayList<>();
        try {
          for (int port = base; port < base + count; port++) {
            try (ServerSocket socket = new ServerSocket(port)) {
              socket.setReuseAddress(true);
            }
            claimed.add(claimFile(CLAIMS.resolve(String.valueOf(port))));
          }
          return base;
        } catch (IOException taken) {
          for (Path file : claimed) {
            Files.deleteIfExists(file);
          }
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot claim ports under " + CLAIMS.toAbsolutePath(), e);
    }
    throw new IllegalStateException("no " + count + " free port(s) between " + LOWEST + " and " + EPHEMERAL);
  }

  /** The claim, holding this JVM's pid; a claim whose JVM has ended is stale and taken over. */
  private static Path claimFile(Path file) throws IOException {
    String pid = String.valueOf(ProcessHandle.current().pid());
    try {
      return Files.writeString(file, pid, java.nio.file.StandardOpenOption.CREATE_NEW);
    } catch (java.nio.file.FileAlreadyExistsException held) {
      String holder = Files.readString(file).strip();
      // An empty claim is one being written this moment.
      boolean alive = holder.isEmpty() || ProcessHandle.of(Long.parseLong(holder)).map(ProcessHandle::isAlive)
          .orElse(false);
      if (alive) {
        throw held;
      }
      Files.delete(file);
      return Files.writeString(file, pid, java.nio.file.StandardOpenOption.CREATE_NEW);
    }
  }

  @Override
  public void close() throws InterruptedException {
    for (String name : List.copyOf(processes.keySet())) {
      Process process = processes.remove(name);
      process.destroy();
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
  }
}
