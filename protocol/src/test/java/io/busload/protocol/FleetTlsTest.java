package io.busload.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.read.ListAppender;
import io.busload.protocol.cluster.Cluster;
import io.busload.protocol.compat.vertx.VertxInternals;
import io.busload.protocol.cluster.ClusterSettings;
import io.busload.protocol.cluster.FleetTls;
import io.busload.protocol.cluster.Strangers;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.EventBusOptions;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.net.PfxOptions;
import io.vertx.core.spi.cluster.NodeInfo;
import io.vertx.core.spi.cluster.RegistrationInfo;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.LoggerFactory;

/**
 * The event bus with the fleet's certificates from the real {@code ./busload certs}, real
 * Hazelcast members on loopback, a unique cluster per test. A stranger joins Hazelcast freely (open source
 * authenticates nobody) and registers a consumer on {@code busload.results}; what it can do after that is what
 * these tests measure.
 */
class FleetTlsTest {
  private static final Path WORK = Path.of("target", "fleet-tls");
  private static Path fleet;
  private static Path otherFleet;
  private static final List<Vertx> started = new ArrayList<>();

  /** Every log line of the class, at DEBUG for Vert.x, Netty, Hazelcast and Busload: checked for secrets. */
  private static final ListAppender<ILoggingEvent> logged = new ListAppender<>();
  private static final Map<String, Level> levelsBefore = new HashMap<>();
  private static Appender<ILoggingEvent> console;

  @BeforeAll
  static void issueCertificates() throws Exception {
    Files.createDirectories(WORK);
    Path dir = Files.createTempDirectory(WORK, "run-");
    long start = System.nanoTime();
    fleet = FleetCerts.issue(dir.resolve("fleet"), "--coordinator", "c1@127.0.0.1",
        "--agent", "a1@127.0.0.1,a2@127.0.0.1", "--dashboard", "d1@127.0.0.1");
    otherFleet = FleetCerts.issue(dir.resolve("other"), "--coordinator", "x1@127.0.0.1");
    System.out.printf("./busload certs: two fleets, 5 members, in %.1f s%n", (System.nanoTime() - start) / 1e9);

    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    console = root.getAppender("OUT");
    root.detachAppender("OUT"); // DEBUG from four libraries is for the check below, not for the build log
    logged.setContext(context);
    logged.start();
    root.addAppender(logged);
    for (String name : List.of("io.vertx", "io.netty", "com.hazelcast", "io.busload")) {
      levelsBefore.put(name, context.getLogger(name).getLevel());
      context.getLogger(name).setLevel(Level.DEBUG);
    }
  }

  @AfterEach
  void leave() throws Exception {
    for (Vertx vertx : started.reversed()) {
      vertx.close().await(30, TimeUnit.SECONDS);
    }
    started.clear();
  }

  @AfterAll
  static void noSecretInAnyLogLine() throws Exception {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.detachAppender(logged);
    if (console != null) {
      root.addAppender(console);
    }
    levelsBefore.forEach((name, level) -> context.getLogger(name).setLevel(level));

    List<String> secrets = new ArrayList<>(FleetCerts.passwords(fleet));
    secrets.addAll(FleetCerts.passwords(otherFleet));
    assertThat(secrets).hasSize(7); // two CA passwords, five members
    List<String> lines = logged.list.stream().map(e -> e.getFormattedMessage()
        + (e.getThrowableProxy() == null ? "" : "\n" + ThrowableProxyUtil.asString(e.getThrowableProxy()))).toList();
    long tlsLines = lines.stream().filter(l -> l.contains("TLS")).count();
    System.out.printf("log check: %d lines at DEBUG (%d mention TLS), %d secrets, 0 found%n", lines.size(), tlsLines,
        secrets.size());
    assertThat(tlsLines).as("the appender saw the TLS start lines, so it was listening").isPositive();
    for (String secret : secrets) {
      assertThat(lines).as("no log line holds a password").noneMatch(line -> line.contains(secret));
    }
  }

  @Test
  void fleetCertificates_coordinatorAgentDashboard_resultsAckedAndPublishedOverTls() throws Exception {
    Member coordinator = member(ClusterSettings.COORDINATOR, fleet.resolve("coordinator-c1"));
    Vertx agent = join(coordinator, ClusterSettings.AGENT, fleet.resolve("agent-a1"));
    Vertx dashboard = join(coordinator, ClusterSettings.DASHBOARD, fleet.resolve("dashboard-d1"));
    Set<UUID> stored = storeAndPublish(coordinator.vertx);
    Set<UUID> seenLive = ConcurrentHashMap.newKeySet();
    dashboard.eventBus().<KernelResult>consumer(Addresses.LIVE_RESULTS, m -> seenLive.add(m.body().id()))
        .completion().await(10, TimeUnit.SECONDS);
    awaitRegistrations(agent, Addresses.RESULTS, 1);
    awaitRegistrations(agent, Addresses.LIVE_RESULTS, 1);
    assertThat(Cluster.coordinators(agent)).hasSize(1);

    List<KernelResult> results = results(20);
    Delivered delivered = deliver(agent, results, Duration.ofSeconds(60));
    // An agent holds a member certificate, which dashboards do not trust: it cannot feed their live view.
    KernelResult forged = JsonCodecTest.result(true);
    agent.eventBus().publish(Addresses.LIVE_RESULTS, forged);

    assertThat(delivered.acked()).isEqualTo(ids(results));
    assertThat(stored).isEqualTo(ids(results));
    await(() -> seenLive.size() >= 20, Duration.ofSeconds(20), "20 results published to the dashboard");
    Thread.sleep(3000);
    assertThat(seenLive).isEqualTo(ids(results)).doesNotContain(forged.id());
    System.out.printf("fleet: 20 results sent, %d acked, %d stored, %d failed attempts; dashboard got %d from the "
        + "coordinator and 0 of 1 published by the agent%n", delivered.acked().size(), stored.size(),
        delivered.failures(), seenLive.size());
  }

  /** Strangers that claim the coordinator role, which Hazelcast lets anyone do. */
  enum Stranger {
    /** Plain TCP: no certificate at all. */
    NO_CERTIFICATE,
    /**
     * TLS with a coordinator certificate of another fleet (another CA), trusting every certificate and asking for
     * none: the only checks left are the fleet members' own.
     */
    OTHER_FLEET_COORDINATOR
  }

  private static Vertx stranger(Member first, Stranger kind) throws Exception {
    ClusterSettings settings = settings(first.clusterName, first.port, ClusterSettings.COORDINATOR);
    EventBusOptions eventBus = new EventBusOptions();
    if (kind == Stranger.OTHER_FLEET_COORDINATOR) {
      Path member = otherFleet.resolve("coordinator-x1");
      eventBus.setSsl(true)
          .setKeyCertOptions(new PfxOptions().setPath(member.resolve(FleetTls.KEY_STORE).toString())
              .setPassword(Files.readString(member.resolve(FleetTls.PASSWORD_FILE)).strip()))
          .setTrustAll(true)
          .setClientAuth(ClientAuth.NONE);
    }
    Vertx vertx = Strangers.start(settings, eventBus).await(60, TimeUnit.SECONDS);
    started.add(vertx);
    return vertx;
  }

  @ParameterizedTest
  @EnumSource(Stranger.class)
  void stranger_registersOnResults_readsNoneAndNoneOfItsResultsAcked(Stranger kind) throws Exception {
    Member coordinator = member(ClusterSettings.COORDINATOR, fleet.resolve("coordinator-c1"));
    Vertx agent = join(coordinator, ClusterSettings.AGENT, fleet.resolve("agent-a1"));
    Set<UUID> stored = storeAndPublish(coordinator.vertx);
    Vertx stranger = stranger(coordinator, kind);
    Set<UUID> stolen = ConcurrentHashMap.newKeySet();

    List<KernelResult> fromAgent = results(12);
    Delivered delivered = deliverPastTrap(agent, fromAgent, stranger, stolen);
    List<KernelResult> fromStranger = results(6);
    Delivered submitted = deliver(stranger, fromStranger, Duration.ofSeconds(8));

    assertThat(stolen).as("results the stranger read").isEmpty();
    assertThat(delivered.acked()).isEqualTo(ids(fromAgent));
    assertThat(stored).as("stored: the agent's 12, none of the stranger's").isEqualTo(ids(fromAgent));
    assertThat(submitted.acked()).as("the stranger's results acked").isEmpty();
    assertThat(delivered.failures()).as("sends routed to the stranger, which failed and were retried").isPositive();
    System.out.printf("%s: agent sent 12, %d acked by the coordinator after %d failed attempts (routed to the "
        + "stranger); stranger read 0, submitted 6 in %d attempts, 0 acked, 0 stored%n", kind,
        delivered.acked().size(), delivered.failures(), submitted.failures());
  }

  @Test
  void otherAgentsCertificate_registersOnResults_readsNoneButItsOwnResultsAreAccepted() throws Exception {
    Member coordinator = member(ClusterSettings.COORDINATOR, fleet.resolve("coordinator-c1"));
    Vertx agent = join(coordinator, ClusterSettings.AGENT, fleet.resolve("agent-a1"));
    Set<UUID> stored = storeAndPublish(coordinator.vertx);
    Vertx otherAgent = join(coordinator, ClusterSettings.AGENT, fleet.resolve("agent-a2"));
    Set<UUID> stolen = ConcurrentHashMap.newKeySet();

    List<KernelResult> fromAgent = results(12);
    Delivered delivered = deliverPastTrap(agent, fromAgent, otherAgent, stolen);
    List<KernelResult> fromOther = results(3);
    Delivered submitted = deliver(otherAgent, fromOther, Duration.ofSeconds(60));

    // Agents trust only the coordinator CA: a fellow agent's certificate is no good to another agent.
    assertThat(stolen).as("results the other agent read").isEmpty();
    assertThat(delivered.acked()).isEqualTo(ids(fromAgent));
    assertThat(delivered.failures()).isPositive();
    // What the certificate does not prevent: any agent may submit results (and may name another agent in them).
    assertThat(submitted.acked()).isEqualTo(ids(fromOther));
    Set<UUID> expected = new java.util.HashSet<>(ids(fromAgent));
    expected.addAll(ids(fromOther));
    assertThat(stored).isEqualTo(expected);
    System.out.printf("agent a2 on busload.results: a1 sent 12, %d acked by the coordinator after %d failed "
        + "attempts; a2 read 0; a2's own 3 results acked and stored%n", delivered.acked().size(),
        delivered.failures());
  }

  @Test
  void eventBusPort_clientWithoutCertificate_refusedAfterServerShowsItsFleetCertificate() throws Exception {
    Member coordinator = member(ClusterSettings.COORDINATOR, fleet.resolve("coordinator-c1"));
    NodeInfo node = VertxInternals.clusterManager(coordinator.vertx).orElseThrow().getNodeInfo();
    AtomicReference<X509Certificate> shown = new AtomicReference<>();
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, new TrustManager[] {new X509TrustManager() {
      @Override
      public void checkClientTrusted(X509Certificate[] chain, String authType) {}

      @Override
      public void checkServerTrusted(X509Certificate[] chain, String authType) {
        shown.set(chain[0]);
      }

      @Override
      public X509Certificate[] getAcceptedIssuers() {
        return new X509Certificate[0];
      }
    }}, null);

    String outcome;
    try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket(node.host(), node.port())) {
      socket.setSoTimeout(5000);
      socket.startHandshake(); // TLS 1.3: the client is done before the server has judged it
      InputStream in = socket.getInputStream();
      try {
        outcome = in.read() == -1 ? "closed" : "data";
      } catch (SSLException e) {
        outcome = "refused: " + e.getMessage();
      } catch (SocketTimeoutException e) {
        outcome = "still open after 5 s";
      }
    } catch (SSLException e) {
      outcome = "refused: " + e.getMessage();
    }

    assertThat(shown.get()).isNotNull();
    assertThat(FleetTls.roleOf(shown.get())).isEqualTo(ClusterSettings.COORDINATOR);
    assertThat(shown.get().getSubjectX500Principal().getName()).contains("CN=c1");
    assertThat(outcome).as("a client without a certificate").matches("refused: .*|closed");
    System.out.printf("TLS client without a certificate: server showed %s, then %s%n",
        shown.get().getSubjectX500Principal(), outcome);
  }

  @Test
  void start_certificateOfAnotherRole_refusedNamingBothRoles() {
    ClusterSettings settings = settings(uniqueName(), port(), ClusterSettings.COORDINATOR)
        .withTls(FleetTls.inDirectory(fleet.resolve("agent-a1")));

    assertThatThrownBy(() -> Cluster.start(settings).await(60, TimeUnit.SECONDS))
        .hasMessageContaining("issued for role 'agent'")
        .hasMessageContaining("this member's role is 'coordinator'");
  }

  @Test
  void start_wrongPassword_refusedNamingTheFileNotThePassword() throws Exception {
    Path dir = Files.createTempDirectory(WORK, "wrong-password-");
    Path member = fleet.resolve("agent-a1");
    Files.copy(member.resolve(FleetTls.KEY_STORE), dir.resolve(FleetTls.KEY_STORE));
    Files.copy(member.resolve(FleetTls.TRUST_STORE), dir.resolve(FleetTls.TRUST_STORE));
    String wrong = "not-the-password-" + UUID.randomUUID();
    Files.writeString(dir.resolve(FleetTls.PASSWORD_FILE), wrong + "\n");
    ClusterSettings settings = settings(uniqueName(), port(), ClusterSettings.AGENT).withTls(FleetTls.inDirectory(dir));

    assertThatThrownBy(() -> Cluster.join(settings, Duration.ofSeconds(1), Duration.ofDays(1)))
        .hasMessageContaining(dir.resolve(FleetTls.KEY_STORE).toString())
        .hasMessageNotContaining(wrong);
  }

  @Test
  void fromEnvironment_privateInterfaceWithoutTls_refusedUnlessTlsDirOrOff() {
    Map<String, String> network = Map.of("BUSLOAD_CLUSTER_HOST", "10.0.0.5");

    assertThatThrownBy(() -> ClusterSettings.fromEnvironment(network, ClusterSettings.AGENT, 7703))
        .hasMessageContaining("BUSLOAD_TLS_DIR").hasMessageContaining("10.0.0.5");
    Map<String, String> withDir = new HashMap<>(network);
    withDir.put("BUSLOAD_TLS_DIR", "/etc/busload/tls/agent");
    assertThat(ClusterSettings.fromEnvironment(withDir, ClusterSettings.AGENT, 7703).tls())
        .isEqualTo(FleetTls.inDirectory(Path.of("/etc/busload/tls/agent")));
    Map<String, String> off = new HashMap<>(network);
    off.put("BUSLOAD_TLS", "off");
    assertThat(ClusterSettings.fromEnvironment(off, ClusterSettings.AGENT, 7703).tls()).isNull();
    Map<String, String> both = new HashMap<>(withDir);
    both.put("BUSLOAD_TLS", "off");
    assertThatThrownBy(() -> ClusterSettings.fromEnvironment(both, ClusterSettings.AGENT, 7703))
        .hasMessageContaining("both");
    assertThat(ClusterSettings.fromEnvironment(Map.of(), ClusterSettings.AGENT, 7703).tls())
        .as("loopback, nothing set: plain, as ./busload up and the tests run").isNull();
  }

  @Test
  void start_onLoopback_clusterAndEventBusPortsClosedOnOtherInterfaces() throws Exception {
    Optional<InetAddress> other = NetworkInterface.networkInterfaces()
        .flatMap(NetworkInterface::inetAddresses)
        .filter(a -> a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress())
        .findFirst();
    assumeTrue(other.isPresent(), "this machine has no non-loopback IPv4 address to try");
    Member member = member(ClusterSettings.COORDINATOR, fleet.resolve("coordinator-c1"));
    var manager = (HazelcastClusterManager) VertxInternals.clusterManager(member.vertx).orElseThrow();
    int clusterPort = manager.getHazelcastInstance().getCluster().getLocalMember().getAddress().getPort();
    int eventBusPort = manager.getNodeInfo().port();

    Map<String, String> reached = new java.util.LinkedHashMap<>();
    for (InetAddress address : List.of(InetAddress.getLoopbackAddress(), other.get())) {
      for (int port : List.of(clusterPort, eventBusPort)) {
        reached.put(address.getHostAddress() + ":" + port, connects(address, port));
      }
    }

    String loopback = InetAddress.getLoopbackAddress().getHostAddress();
    String outside = other.get().getHostAddress();
    assertThat(reached).containsEntry(loopback + ":" + clusterPort, "connected")
        .containsEntry(loopback + ":" + eventBusPort, "connected")
        .containsEntry(outside + ":" + clusterPort, "refused")
        .containsEntry(outside + ":" + eventBusPort, "refused");
    System.out.println("member bound to 127.0.0.1: " + reached);
  }

  // --- helpers

  private record Member(Vertx vertx, String clusterName, int port) {}

  private record Delivered(Set<UUID> acked, int failures) {}

  private static Member member(String role, Path tls) throws Exception {
    String name = uniqueName();
    int port = port();
    ClusterSettings settings = settings(name, port, role);
    Vertx vertx = Cluster.start(tls == null ? settings : settings.withTls(FleetTls.inDirectory(tls)))
        .await(60, TimeUnit.SECONDS);
    started.add(vertx);
    return new Member(vertx, name, port);
  }

  private static Vertx join(Member first, String role, Path tls) throws Exception {
    ClusterSettings settings = settings(first.clusterName, first.port, role);
    Vertx vertx = Cluster.start(tls == null ? settings : settings.withTls(FleetTls.inDirectory(tls)))
        .await(60, TimeUnit.SECONDS);
    started.add(vertx);
    return vertx;
  }

  private static ClusterSettings settings(String name, int port, String role) {
    return new ClusterSettings(name, "127.0.0.1", null, port, 0, List.of("127.0.0.1"), role);
  }

  private static String uniqueName() {
    return "busload-tls-test-" + UUID.randomUUID();
  }

  private static int port() {
    return 18101 + (int) (Math.random() * 400);
  }

  /** The coordinator's part: store what arrives, ack it by id, publish it live (as Intake and ResultBatcher do). */
  private static Set<UUID> storeAndPublish(Vertx coordinator) throws Exception {
    Set<UUID> stored = ConcurrentHashMap.newKeySet();
    coordinator.eventBus().<KernelResult>consumer(Addresses.RESULTS, m -> {
      stored.add(m.body().id());
      m.reply(Ack.ok(m.body().id().toString()));
      coordinator.eventBus().publish(Addresses.LIVE_RESULTS, m.body());
    }).completion().await(10, TimeUnit.SECONDS);
    return stored;
  }

  private static List<KernelResult> results(int count) {
    List<KernelResult> results = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      results.add(JsonCodecTest.result(true));
    }
    return results;
  }

  private static Set<UUID> ids(List<KernelResult> results) {
    return results.stream().map(KernelResult::id).collect(Collectors.toSet());
  }

  /**
   * What the agent's Delivery does, in rounds: send every pending result at once, keep those not answered by an
   * ok ack naming them, send those again, until none is left or {@code within} has passed. A send routed to a
   * member whose TLS handshake fails ends only by its timeout: 1 s (a loopback ack takes milliseconds) keeps the
   * rounds short, and one that times out anyway is only sent again.
   */
  private static Delivered deliver(Vertx from, List<KernelResult> results, Duration within) throws Exception {
    Set<UUID> acked = ConcurrentHashMap.newKeySet();
    AtomicInteger failures = new AtomicInteger();
    List<KernelResult> pending = new ArrayList<>(results);
    long deadline = System.nanoTime() + within.toNanos();
    while (!pending.isEmpty() && System.nanoTime() < deadline) {
      List<Future<?>> round = new ArrayList<>();
      for (KernelResult result : pending) {
        round.add(from.eventBus().<Ack>request(Addresses.RESULTS, result, new DeliveryOptions().setSendTimeout(1000))
            .andThen(reply -> {
              if (reply.succeeded() && reply.result().body().ok()
                  && result.id().toString().equals(reply.result().body().id())) {
                acked.add(result.id());
              } else {
                failures.incrementAndGet();
              }
            }));
      }
      Future.join(round).otherwiseEmpty().await(30, TimeUnit.SECONDS);
      pending.removeIf(r -> acked.contains(r.id()));
    }
    return new Delivered(acked, failures.get());
  }

  /** Waits until {@code vertx} sees consumers of {@code address} on {@code nodes} distinct members. */
  /**
   * The agent's {@code results}, delivered while {@code trapper} holds a second consumer on the results address that
   * would lie if it could (it acks whatever reaches it, noting it in {@code read}); then the trap is taken away, as
   * the trapper's own consumer would take its own sends (round robin includes the local one).
   */
  private static Delivered deliverPastTrap(Vertx agent, List<KernelResult> results, Vertx trapper, Set<UUID> read)
      throws Exception {
    MessageConsumer<KernelResult> trap = trapper.eventBus().<KernelResult>consumer(Addresses.RESULTS, m -> {
      read.add(m.body().id());
      m.reply(Ack.ok(m.body().id().toString()));
    });
    trap.completion().await(10, TimeUnit.SECONDS);
    // Both consumers are in the agent's view, so sends really are spread over the two.
    awaitRegistrations(agent, Addresses.RESULTS, 2);
    Delivered delivered = deliver(agent, results, Duration.ofSeconds(120));
    trap.unregister().await(10, TimeUnit.SECONDS);
    awaitRegistrations(trapper, Addresses.RESULTS, 1);
    return delivered;
  }

  private static void awaitRegistrations(Vertx vertx, String address, int nodes) throws Exception {
    await(() -> {
      Promise<List<RegistrationInfo>> promise = Promise.promise();
      VertxInternals.clusterManager(vertx).orElseThrow().getRegistrations(address, promise);
      List<RegistrationInfo> registrations = promise.future().await(10, TimeUnit.SECONDS);
      return registrations.stream().map(RegistrationInfo::nodeId).distinct().count() == nodes;
    }, Duration.ofSeconds(30), nodes + " member(s) with consumers on " + address);
  }

  private static String connects(InetAddress address, int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(address, port), 2000);
      return "connected";
    } catch (ConnectException e) {
      return "refused";
    } catch (IOException e) {
      return e.toString();
    }
  }

  private static void await(java.util.concurrent.Callable<Boolean> condition, Duration within, String what)
      throws Exception {
    long deadline = System.nanoTime() + within.toNanos();
    while (System.nanoTime() < deadline) {
      if (condition.call()) {
        return;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("timed out waiting for " + what);
  }
}
