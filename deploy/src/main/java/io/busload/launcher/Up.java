package io.busload.launcher;

import io.busload.protocol.pki.CertsCommand;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.Writer;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./busload up}: a coordinator, one agent and a dashboard on this machine, started from the bundle as three
 * processes, as a lab runs them. It waits until the dashboard and the REST API answer, shows the first admin password
 * and API token once (they are never logged), and stops all three when it is stopped (Ctrl-C) or when one of them
 * exits, so that no half of a fleet is left running.
 *
 * <p>The event bus and the bridge use TLS here too, with a throw-away fleet CA issued once into {@code STATE/tls}:
 * what runs locally is what runs in production. {@code BUSLOAD_TLS=off} runs plain TCP instead.
 */
@Command(name = "up", mixinStandardHelpOptions = true,
    description = "Starts coordinator, agent and dashboard from the bundle; Ctrl-C stops them.")
public final class Up implements Callable<Integer> {
  static final URI DASHBOARD = URI.create("http://localhost:8080/");
  static final URI REST = URI.create("http://localhost:8081/api/agents");
  private static final PrintStream ERR = System.err;

  @Option(names = "--bundle", required = true, paramLabel = "DIR", description = "the bundle: jars, lib/, jvm.options")
  Path bundle;

  @Option(names = "--state", required = true, paramLabel = "DIR",
      description = "the fleet's files: database, logs, certificates, tokens")
  Path state;

  @Option(names = "--wait", defaultValue = "240", paramLabel = "SECONDS",
      description = "how long the processes may take to answer (default ${DEFAULT-VALUE})")
  int waitSeconds;

  /** A started process and the log its output goes to. */
  record Child(String name, Process process, Path log) {}

  private final List<Child> children = new ArrayList<>();
  /** Set once a stop is under way, so that the children's exits it causes are not reported as failures. */
  private volatile boolean stopping;

  public static void main(String[] args) {
    System.exit(new CommandLine(new Up()).execute(args));
  }

  @Override
  public Integer call() throws IOException, InterruptedException {
    Path logs = state.resolve("logs");
    Files.createDirectories(logs);
    Files.createDirectories(state.resolve("data"));
    boolean tls = !"off".equals(System.getenv("BUSLOAD_TLS"));
    String agentName = hostName().matches("[A-Za-z0-9._-]+") ? hostName() : "local";
    if (tls) {
      issueLocalCertificates(agentName);
    }
    Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(this::stopAll));
    Path tlsDir = state.resolve("tls");
    // REST writes need an API token: at its first start the coordinator makes one named admin and hands it over in
    // first-api-token; it is shown once below and kept in api-token (mode 600) for the dashboard's writes.
    start("coordinator", List.of("-cp", classPath("coordinator.jar"), "io.busload.coordinator.Main", "--data",
        state.resolve("data").toString()), Map.of("BUSLOAD_TLS_DIR", tls ? tlsDir.resolve("coordinator-local") + "" : "",
        "BUSLOAD_FIRST_API_TOKEN_FILE", state.resolve("first-api-token").toString()));
    start("agent", List.of("-cp", classPath("agent.jar"), "io.busload.agent.Main", "agent"),
        Map.of("BUSLOAD_TLS_DIR", tls ? tlsDir.resolve("agent-" + agentName) + "" : ""));
    start("dashboard", List.of("-jar", bundle.resolve("dashboard.jar").toString()), Map.of(
        "BUSLOAD_FIRST_PASSWORD_FILE", state.resolve("first-admin-password").toString(),
        "BUSLOAD_USERS_FILE", state.resolve("users.properties").toString(),
        "BUSLOAD_TLS_DIR", tls ? tlsDir.resolve("dashboard-local") + "" : "",
        "BUSLOAD_API_TOKEN_FILE", state.resolve("api-token").toString()));

    Child exited = awaitAnswers();
    if (exited != null) {
      ERR.println("busload: the " + exited.name() + " exited at start (exit " + exited.process().exitValue()
          + "); see " + exited.log());
      return 1;
    }
    showFirstSecrets();
    ERR.println("busload: coordinator REST API: " + REST);
    ERR.println("busload: logs: " + logs + "/");
    System.out.println("Busload dashboard: " + DASHBOARD);
    Child gone = (Child) CompletableFuture.anyOf(children.stream()
        .map(c -> c.process().onExit().thenApply(p -> c)).toArray(CompletableFuture[]::new)).join();
    if (stopping) {
      return 0;
    }
    ERR.println("busload: the " + gone.name() + " exited (exit " + gone.process().exitValue() + "); stopping the"
        + " others; see " + gone.log());
    return 1;
  }

  private void issueLocalCertificates(String agentName) {
    Path tls = state.resolve("tls");
    if (Files.isDirectory(tls.resolve("coordinator-local")) && Files.isDirectory(tls.resolve("agent-" + agentName))
        && Files.isDirectory(tls.resolve("dashboard-local"))) {
      return;
    }
    ERR.println("busload: issuing a throw-away local fleet CA and certificates into " + tls
        + " (once; delete it to issue new ones)");
    CommandLine certs = CertsCommand.commandLine();
    certs.setOut(new PrintWriter(Writer.nullWriter()));
    int exit = certs.execute("--out", tls.toString(), "--ca-password-file", state.resolve("tls-ca-password").toString(),
        "--coordinator", "local@localhost@127.0.0.1",
        "--agent", agentName + "@localhost@127.0.0.1", "--dashboard", "local@localhost@127.0.0.1");
    if (exit != 0) {
      throw new IllegalStateException("cannot issue the local certificates into " + tls + " (exit " + exit + ")");
    }
  }

  /**
   * This host's name as the agent finds its own (the resolver's, else HOSTNAME): the local agent's certificate is
   * issued to it, and on the bridge an agent is known by its certificate's name.
   */
  static String hostName() {
    try {
      String name = InetAddress.getLocalHost().getHostName();
      if (name != null && !name.isBlank()) {
        return name;
      }
    } catch (IOException e) {
      // no resolver answer: the environment's name below
    }
    String env = System.getenv("HOSTNAME");
    return env != null && !env.isBlank() ? env : "localhost";
  }

  private String classPath(String jar) {
    return bundle.resolve(jar) + ":" + bundle.resolve("lib") + "/*";
  }

  /** Starts {@code java @jvm.options args...} with this JVM's java, output to {@code logs/NAME.log}. */
  private void start(String name, List<String> args, Map<String, String> env) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    command.add("@" + bundle.resolve("jvm.options"));
    command.addAll(args);
    Path log = state.resolve("logs").resolve(name + ".log");
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
    env.forEach((key, value) -> {
      if (!value.isEmpty()) {
        builder.environment().put(key, value);
      }
    });
    children.add(new Child(name, builder.start(), log));
  }

  /** Null once the dashboard and the REST API answer (or the wait is over); else the child that exited first. */
  private Child awaitAnswers() throws InterruptedException {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1))
        .followRedirects(HttpClient.Redirect.NEVER).build();
    Instant deadline = Instant.now().plusSeconds(waitSeconds);
    while (Instant.now().isBefore(deadline)) {
      if (answers(http, DASHBOARD) && answers(http, REST)) {
        return null;
      }
      for (Child child : children) {
        if (!child.process().isAlive()) {
          return child;
        }
      }
      Thread.sleep(1000);
    }
    ERR.println("busload: no answer from " + DASHBOARD + " and " + REST + " after " + waitSeconds
        + " s; still starting? see " + state.resolve("logs") + "/");
    return null;
  }

  /** True when {@code uri} answers below 400 (a redirect to the login counts). */
  static boolean answers(HttpClient http, URI uri) throws InterruptedException {
    try {
      HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).GET().build();
      return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() < 400;
    } catch (IOException e) {
      return false;
    }
  }

  /** The first admin password and API token, on the terminal only: shown once, then the password file is gone. */
  private void showFirstSecrets() throws IOException {
    Path password = state.resolve("first-admin-password");
    if (Files.exists(password) && Files.size(password) > 0) {
      ERR.print(Files.readString(password, StandardCharsets.UTF_8));
      Files.delete(password);
    }
    Path token = state.resolve("first-api-token");
    if (Files.exists(token) && Files.size(token) > 0) {
      ERR.println("Busload REST API token (admin; send as Authorization: Bearer TOKEN): "
          + Files.readString(token, StandardCharsets.UTF_8).strip());
      Files.move(token, state.resolve("api-token"), StandardCopyOption.REPLACE_EXISTING);
    }
  }

  /** SIGTERM to each child, then a kill for any that has not gone within 20 seconds. */
  private void stopAll() {
    if (children.stream().noneMatch(c -> c.process().isAlive())) {
      return;
    }
    stopping = true;
    ERR.println("busload: stopping");
    children.forEach(c -> c.process().destroy());
    for (Child child : children) {
      try {
        if (!child.process().waitFor(20, TimeUnit.SECONDS)) {
          child.process().destroyForcibly();
        }
      } catch (InterruptedException e) {
        child.process().destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }
}
