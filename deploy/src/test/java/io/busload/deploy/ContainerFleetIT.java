package io.busload.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.protocol.JsonCodec;
import io.busload.testsupport.FleetCerts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The whole fleet in containers from the images {@code ./busload images} built, run by podman as a lab would run
 * them on one host: the coordinator with its embedded PostgreSQL in a mounted data folder, the dashboard, and an
 * agent measuring the CPU that reaches the coordinator through its bridge with mutual TLS. Certificates come from
 * {@code ./busload certs}' own command and are mounted in read-only, as {@code BUSLOAD_TLS_DIR}. Every container runs
 * as the images' user with a read-only root, no capabilities and no new privileges.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ContainerFleetIT {
  static final Path WORK = Path.of("target", "container-fleet").toAbsolutePath();
  static final String TOKEN = "containers-" + UUID.randomUUID();
  static final String AGENT = "cpu-agent";

  final String run = "busload-it-" + UUID.randomUUID().toString().substring(0, 8);
  final List<String> containers = new ArrayList<>();
  Podman podman;
  Path dir;
  Path certs;
  Path outbox;
  String coordinatorIp;
  String dashboardIp;
  HttpClient https;
  HttpResponse<String> ready;
  HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  void start() throws Exception {
    dir = Files.createTempDirectory(Files.createDirectories(WORK), "fleet-");
    podman = Podman.ready(dir);
    String coordinatorImage = podman.image("coordinator");
    String dashboardImage = podman.image("dashboard");
    String agentImage = podman.image("agent");
    String subnet = podman.network(run);
    coordinatorIp = subnet + ".10";
    dashboardIp = subnet + ".11";

    // The agent dials the coordinator by the name the network's DNS gives it and checks it against the
    // certificate; the test reaches the REST API at the address, which the certificate names too.
    certs = FleetCerts.issue(dir.resolve("certs"), "--coordinator", "coordinator@" + coordinatorIp,
        "--dashboard", "dashboard", "--agent", AGENT);
    https = fleetClient(certs.resolve("coordinator-coordinator"));
    Path etc = Files.createDirectories(dir.resolve("etc"));
    Files.writeString(etc.resolve("api-tokens"), "containers:" + LocalFleet.sha256Hex(TOKEN) + "\n");
    Files.writeString(etc.resolve("api-token"), TOKEN + "\n");
    Path data = Files.createDirectories(dir.resolve("data"));
    Path users = Files.createDirectories(dir.resolve("users"));
    outbox = Files.createDirectories(dir.resolve("outbox"));
    for (Path owned : List.of(certs, etc, data, users, outbox)) {
      Podman.ownByImageUser(owned);
    }

    container("coordinator", List.of("--ip", coordinatorIp, "--network-alias", "coordinator",
        "-v", data + ":/var/lib/busload",
        "-v", certs.resolve("coordinator-coordinator") + ":/etc/busload/tls/coordinator:ro",
        "-v", etc.resolve("api-tokens") + ":/etc/busload/api-tokens:ro",
        "-e", "BUSLOAD_DATA=/var/lib/busload",
        "-e", "BUSLOAD_TLS_DIR=/etc/busload/tls/coordinator",
        "-e", "BUSLOAD_HTTP_HOST=0.0.0.0",
        "-e", "BUSLOAD_REST_TLS=on",
        "-e", "BUSLOAD_CLUSTER_HOST=" + coordinatorIp,
        "-e", "BUSLOAD_CLUSTER_MEMBERS=" + coordinatorIp,
        "-e", "BUSLOAD_API_TOKENS_FILE=/etc/busload/api-tokens"), coordinatorImage, List.of());
    // The coordinator's first start (initdb, the migrations, the cluster) has two minutes; on two shared cores the
    // other two JVMs starting beside it can take them. They need it up anyway: the agent only retries until then.
    ready = await("the coordinator ready", 240, () -> {
      HttpResponse<String> r = get(https, "https://" + coordinatorIp + ":8081/ready");
      return r.statusCode() == 200 ? r : null;
    });
    container("dashboard", List.of("--ip", dashboardIp,
        "-v", certs.resolve("dashboard-dashboard") + ":/etc/busload/tls/dashboard:ro",
        "-v", etc.resolve("api-token") + ":/etc/busload/api-token:ro",
        "-v", users + ":/etc/busload/users",
        "-e", "BUSLOAD_TLS_DIR=/etc/busload/tls/dashboard",
        "-e", "BUSLOAD_COORDINATOR_URL=https://coordinator:8081",
        "-e", "BUSLOAD_CLUSTER_HOST=" + dashboardIp,
        "-e", "BUSLOAD_CLUSTER_MEMBERS=" + coordinatorIp,
        "-e", "BUSLOAD_API_TOKEN_FILE=/etc/busload/api-token",
        "-e", "BUSLOAD_USERS_FILE=/etc/busload/users/users.properties"), dashboardImage, List.of());
    container("agent", List.of(
        "-v", certs.resolve("agent-" + AGENT) + ":/etc/busload/tls/agent:ro",
        "-v", outbox + ":/var/lib/busload/outbox",
        "-e", "BUSLOAD_AGENT_ID=" + AGENT,
        "-e", "BUSLOAD_TLS_DIR=/etc/busload/tls/agent",
        "-e", "BUSLOAD_BRIDGE=coordinator:7704",
        "-e", "BUSLOAD_OUTBOX=/var/lib/busload/outbox"), agentImage, List.of("agent", "--device", "cpu"));
  }

  /** One detached container of this run on its network, hardened as the Kubernetes manifests run them. */
  private void container(String role, List<String> options, String image, List<String> args) throws Exception {
    String name = run + "-" + role;
    List<String> command = new ArrayList<>(List.of("run", "--detach", "--name", name, "--network", run,
        "--read-only", "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
        "-e", "BUSLOAD_CLUSTER_NAME=" + run, "-e", "JAVA_TOOL_OPTIONS=-Xmx512m"));
    command.addAll(options);
    command.add(image);
    command.addAll(args);
    containers.add(name);
    podman.run(command.toArray(String[]::new));
  }

  @AfterAll
  void stop() throws Exception {
    if (podman == null) {
      return;
    }
    for (String name : containers) {
      Files.writeString(dir.resolve(name + ".log"), podman.attempt("logs", name).output());
      podman.attempt("rm", "--force", "--time", "10", name);
    }
    podman.attempt("network", "rm", "--force", run);
  }

  @Test
  void fleetInContainers_sweepOverBridgeWithMutualTls_doneNothingLostDashboardAnswers() throws Exception {
    String api = "https://" + coordinatorIp + ":8081";
    String deviceId = await("the agent online through the bridge", 240, () -> {
      for (JsonNode agent : json(get(https, api + "/api/agents"))) {
        if (AGENT.equals(agent.path("agentId").asText()) && agent.path("online").asBoolean()) {
          return agent.path("devices").path(0).path("id").asText();
        }
      }
      return null;
    });
    HttpResponse<String> created = https.send(HttpRequest.newBuilder(URI.create(api + "/api/sweeps"))
        .header("Content-Type", "application/json").header("Authorization", "Bearer " + TOKEN)
        .timeout(Duration.ofSeconds(20))
        .POST(HttpRequest.BodyPublishers.ofString("{\"suite\":\"stride\",\"devices\":[\"" + deviceId
            + "\"],\"options\":{\"elements\":\"65536\"}}")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    String sweepId = JsonCodec.MAPPER.readTree(created.body()).get("id").asText();
    JsonNode sweep = await("sweep DONE", 300, () -> {
      JsonNode s = json(get(https, api + "/api/sweeps/" + sweepId));
      return "DONE".equals(s.path("state").asText()) ? s : null;
    });
    JsonNode results = json(get(https, api + "/api/results?sweepId=" + sweepId));
    HttpResponse<String> login = await("the dashboard's login page", 180, () -> {
      HttpResponse<String> page = get(http, "http://" + dashboardIp + ":8080/login");
      return page.statusCode() == 200 ? page : null;
    });
    long waiting;
    try (Stream<Path> files = Files.list(outbox)) {
      waiting = files.filter(Files::isRegularFile).count();
    }
    String agentLog = podman.run("logs", run + "-agent");

    assertThat(results.size()).as("results stored: none lost").isEqualTo(sweep.path("total").asInt()).isPositive();
    results.forEach(r -> assertThat(r.path("valid").asBoolean()).as(r.toString()).isTrue());
    assertThat(waiting).as("results left unacknowledged in the agent's outbox").isZero();
    assertThat(agentLog).contains("mutual TLS").contains("connected to the bridge at coordinator:7704");
    assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
    assertThat(login.body()).contains("<html");
    System.out.printf("fleet in containers (%s): sweep %s DONE with %d of %d results stored, %d left in the outbox; "
        + "/ready %s; dashboard /login %d%n", run, sweepId, results.size(), sweep.path("total").asInt(), waiting,
        ready.body(), login.statusCode());
  }

  /** An HTTPS client that trusts what a member of the fleet trusts ({@code trust.p12} of its directory). */
  static HttpClient fleetClient(Path member) throws Exception {
    char[] password = Files.readString(member.resolve("password")).strip().toCharArray();
    KeyStore trust = KeyStore.getInstance("PKCS12");
    try (var in = Files.newInputStream(member.resolve("trust.p12"))) {
      trust.load(in, password);
    }
    TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(trust);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, factory.getTrustManagers(), null);
    return HttpClient.newBuilder().sslContext(context).connectTimeout(Duration.ofSeconds(5)).build();
  }

  static HttpResponse<String> get(HttpClient client, String url) throws Exception {
    return client.send(HttpRequest.newBuilder(URI.create(url)).header("Accept", "application/json")
        .timeout(Duration.ofSeconds(20)).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  private static JsonNode json(HttpResponse<String> response) throws Exception {
    return JsonCodec.MAPPER.readTree(response.body());
  }

  /** Polls until {@code probe} gives a value; on time-out, or when a container exits, fails with every log. */
  private <T> T await(String what, int seconds, Callable<T> probe) throws Exception {
    // A container that exited will not come back (none is restarted): fail at once, with its log.
    Callable<String> exited = () -> podman.run("ps", "--all", "--filter", "name=" + run, "--filter",
        "status=exited", "--format", "{{.Names}}").strip();
    return new Poll(Duration.ofSeconds(1), Exception.class, exited, this::containerLogs).until(what, seconds, probe);
  }

  private String containerLogs() throws java.io.IOException, InterruptedException {
    StringBuilder logs = new StringBuilder();
    for (String name : containers) {
      logs.append("\n--- ").append(name).append(" (").append(podman.attempt("inspect", "--format",
          "{{.State.Status}} exit {{.State.ExitCode}}", name).output().strip()).append(")\n")
          .append(podman.attempt("logs", "--tail", "60", name).output());
    }
    return logs.toString();
  }
}
