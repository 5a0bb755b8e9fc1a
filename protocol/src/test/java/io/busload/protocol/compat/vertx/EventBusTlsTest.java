package io.busload.protocol.compat.vertx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import io.busload.protocol.cluster.ClusterSettings;
import io.busload.protocol.cluster.FleetTls;
import io.busload.protocol.pki.CertsCommand;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.eventbus.EventBusOptions;
import io.vertx.core.metrics.MetricsOptions;
import io.vertx.core.net.ClientSSLOptions;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;
import io.vertx.core.net.ServerSSLOptions;
import io.vertx.core.net.SocketAddress;
import io.vertx.core.net.TcpClientConfig;
import io.vertx.core.spi.VertxMetricsFactory;
import io.vertx.core.spi.metrics.TransportMetrics;
import io.vertx.core.spi.metrics.VertxMetrics;
import io.vertx.spi.cluster.hazelcast.ConfigUtil;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.math.BigInteger;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * What {@link EventBusTls} relies on in Vert.x's clustered event bus, and that it works: two real members on loopback
 * over TLS with the fleet's certificates ({@code ./busload certs}, then {@code ./busload certs renew}), where new
 * handshakes get the renewed certificates and the connection made before carries on. A Vert.x upgrade that moves the
 * fields fails here with what changed.
 */
class EventBusTlsTest {
  private static final String HOST = "127.0.0.1";
  private static final String ADDRESS = "busload.test.event-bus-tls";

  @TempDir Path dir;
  private final List<Vertx> started = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (Vertx vertx : started.reversed()) {
      vertx.close().await(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void clusteredEventBus_ofThisVertx_hasItsServerAndClientFields() {
    Class<?> bus;
    try {
      bus = Class.forName(EventBusTls.EVENT_BUS_CLASS);
    } catch (ClassNotFoundException e) {
      throw new AssertionError("Vert.x changed: " + EventBusTls.EVENT_BUS_CLASS + " is gone; EventBusTls must follow "
          + "where the clustered event bus went", e);
    }

    // Each throws, saying what Vert.x changed, when the field is gone or holds something else.
    assertThat(EventBusTls.field(bus, EventBusTls.SERVER_FIELD, NetServer.class).getName()).isEqualTo("server");
    assertThat(EventBusTls.field(bus, EventBusTls.CLIENT_FIELD, NetClient.class).getName()).isEqualTo("client");
  }

  /** A stand-in for a Vert.x whose event bus keeps its client under another type and its server nowhere. */
  @SuppressWarnings("unused")
  private static final class Moved {
    private Object client;
    private static NetServer server;
  }

  @Test
  void field_goneOrOfAnotherType_failsNamingTheClassTheFieldAndThatVertxChanged() {
    assertThatThrownBy(() -> EventBusTls.field(Moved.class, "gone", NetServer.class))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("Vert.x changed: " + Moved.class.getName() + " has no field 'gone'");
    assertThatThrownBy(() -> EventBusTls.field(Moved.class, "client", NetClient.class))
        .hasMessageStartingWith("Vert.x changed: " + Moved.class.getName() + ".client is java.lang.Object, not an "
            + "instance field holding a io.vertx.core.net.NetClient");
    assertThatThrownBy(() -> EventBusTls.field(Moved.class, "server", NetServer.class))
        .hasMessageStartingWith("Vert.x changed: " + Moved.class.getName() + ".server is static ");
  }

  @Test
  void update_vertxThatIsNotClustered_failsSayingSo() {
    Vertx plain = Vertx.vertx();
    started.add(plain);

    assertThatThrownBy(() -> EventBusTls.update(plain, new ServerSSLOptions(), new ClientSSLOptions())
        .await(10, TimeUnit.SECONDS))
        .hasMessageContaining("not " + EventBusTls.EVENT_BUS_CLASS)
        .hasMessageContaining("only a clustered Vert.x");
  }

  @Test
  void update_twoTlsMembers_newHandshakesGetRenewedCertificates_connectionMadeBeforeCarriesOn() throws Exception {
    Path certs = dir.resolve("certs");
    Path caPassword = dir.resolve("ca-password");
    certs("--out", certs.toString(), "--ca-password-file", caPassword.toString(), "--coordinator", "c1@" + HOST,
        "--agent", "a1", "--days", "5");
    Path coordinatorDir = certs.resolve("coordinator-c1");
    Path agentDir = certs.resolve("agent-a1");
    String cluster = "busload-event-bus-tls-" + UUID.randomUUID();
    int hazelcastPort = freePort();
    Vertx coordinator = member(cluster, hazelcastPort, ClusterSettings.COORDINATOR, coordinatorDir, null);
    coordinator.eventBus().<String>consumer(ADDRESS, m -> m.reply("got " + m.body()))
        .completion().await(10, TimeUnit.SECONDS);
    Connections agentConnections = new Connections();
    Vertx agent = member(cluster, hazelcastPort, ClusterSettings.AGENT, agentDir, agentConnections);
    int coordinatorPort = EventBusTls.server(coordinator).actualPort();
    assertThat(requestOnceRegistered(agent, "before")).isEqualTo("got before");
    assertThat(agentConnections.to(coordinatorPort)).as("the agent's connection to the coordinator").isOne();
    BigInteger servedBefore = served(agentDir, coordinatorPort).getSerialNumber();

    certs("renew", "--out", certs.toString(), "--ca-password-file", caPassword.toString(), "--days", "60");
    FleetTls.Loaded coordinatorRenewed = FleetTls.inDirectory(coordinatorDir).load(ClusterSettings.COORDINATOR);
    FleetTls.Loaded agentRenewed = FleetTls.inDirectory(agentDir).load(ClusterSettings.AGENT);
    EventBusTls.update(coordinator, coordinatorRenewed.eventBusServerSsl(), coordinatorRenewed.eventBusClientSsl())
        .await(30, TimeUnit.SECONDS);
    EventBusTls.update(agent, agentRenewed.eventBusServerSsl(), agentRenewed.eventBusClientSsl())
        .await(30, TimeUnit.SECONDS);

    X509Certificate servedAfter = served(agentDir, coordinatorPort);
    X509Certificate presentedByAgent = presentedByClient(agent, coordinatorDir);
    String after = agent.eventBus().<String>request(ADDRESS, "after").await(30, TimeUnit.SECONDS).body();

    assertThat(servedBefore).isNotEqualTo(coordinatorRenewed.certificate().getSerialNumber());
    assertThat(servedAfter.getSerialNumber()).as("the coordinator's event bus to a new handshake")
        .isEqualTo(coordinatorRenewed.certificate().getSerialNumber());
    assertThat(presentedByAgent.getSerialNumber()).as("the agent's event-bus client on a new connection")
        .isEqualTo(agentRenewed.certificate().getSerialNumber());
    assertThat(after).isEqualTo("got after");
    assertThat(agentConnections.to(coordinatorPort)).as("connections the agent made to the coordinator").isOne();
    assertThat(agentConnections.closedTo(coordinatorPort)).as("of them closed").isZero();
  }

  // --- helpers

  private static void certs(String... args) {
    StringWriter output = new StringWriter();
    CommandLine command = CertsCommand.commandLine();
    command.setOut(new PrintWriter(output, true));
    command.setErr(new PrintWriter(output, true));
    assertThat(command.execute(args)).as("./busload certs: " + output).isZero();
  }

  /**
   * A member with the fleet's TLS on its event bus, built as {@code Cluster.start} builds one but with the given
   * metrics, which count the connections its event-bus client makes.
   */
  private Vertx member(String cluster, int port, String role, Path tlsDir, Connections connections)
      throws Exception {
    Config config = ConfigUtil.loadConfig();
    config.setClusterName(cluster);
    config.setLiteMember(!ClusterSettings.COORDINATOR.equals(role));
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.setProperty("hazelcast.logging.type", "slf4j");
    config.setProperty("hazelcast.socket.bind.any", "false");
    config.setProperty("hazelcast.wait.seconds.before.join", "0");
    NetworkConfig network = config.getNetworkConfig();
    network.setPort(port).setPortAutoIncrement(true).setPortCount(20);
    network.getInterfaces().setEnabled(true).clear().addInterface(HOST);
    JoinConfig join = network.getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    join.getTcpIpConfig().setEnabled(true).setMembers(List.of(HOST));
    EventBusOptions eventBus = FleetTls.inDirectory(tlsDir).load(role)
        .apply(new EventBusOptions().setHost(HOST).setPort(0));
    VertxOptions options = new VertxOptions().setEventBusOptions(eventBus);
    var builder = Vertx.builder().withClusterManager(new HazelcastClusterManager(config));
    if (connections != null) {
      options.setMetricsOptions(new MetricsOptions().setEnabled(true));
      builder.withMetrics(connections);
    }
    Vertx vertx = builder.with(options).buildClustered().await(60, TimeUnit.SECONDS);
    started.add(vertx);
    return vertx;
  }

  /** The first request that finds the consumer: registrations reach the other member a moment after they are made. */
  private static String requestOnceRegistered(Vertx from, String body) throws Exception {
    long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (true) {
      try {
        return from.eventBus().<String>request(ADDRESS, body).await(30, TimeUnit.SECONDS).body();
      } catch (io.vertx.core.eventbus.ReplyException | java.util.concurrent.TimeoutException e) {
        // No handler yet, or a first TLS connection slower than the reply timeout on a loaded machine.
        if (System.nanoTime() > giveUp) {
          throw e;
        }
        Thread.sleep(200);
      }
    }
  }

  /** The certificate a new TLS handshake to {@code port} gets, made with the member's key and trust as on disk. */
  private static X509Certificate served(Path member, int port) throws Exception {
    try (SSLSocket socket = (SSLSocket) context(member).getSocketFactory().createSocket(HOST, port)) {
      socket.setSoTimeout(10_000);
      socket.startHandshake();
      return (X509Certificate) socket.getSession().getPeerCertificates()[0];
    }
  }

  /** The certificate that {@code member}'s event-bus client presents to a new server, one with {@code server}'s key. */
  private static X509Certificate presentedByClient(Vertx member, Path server) throws Exception {
    try (SSLServerSocket listening = (SSLServerSocket) context(server).getServerSocketFactory()
        .createServerSocket(0, 1, java.net.InetAddress.getByName(HOST))) {
      listening.setNeedClientAuth(true);
      listening.setSoTimeout(10_000);
      CompletableFuture<X509Certificate> presented = CompletableFuture.supplyAsync(() -> {
        try (SSLSocket accepted = (SSLSocket) listening.accept()) {
          accepted.setSoTimeout(10_000);
          accepted.startHandshake();
          return (X509Certificate) accepted.getSession().getPeerCertificates()[0];
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      NetSocket socket = EventBusTls.client(member).connect(listening.getLocalPort(), HOST)
          .await(10, TimeUnit.SECONDS);
      try {
        return presented.get(10, TimeUnit.SECONDS);
      } finally {
        socket.close();
      }
    }
  }

  private static SSLContext context(Path member) throws Exception {
    char[] password = Files.readString(member.resolve(FleetTls.PASSWORD_FILE)).strip().toCharArray();
    KeyStore keys = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(member.resolve(FleetTls.KEY_STORE))) {
      keys.load(in, password);
    }
    KeyStore trust = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(member.resolve(FleetTls.TRUST_STORE))) {
      trust.load(in, password);
    }
    KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keyManagers.init(keys, password);
    TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trustManagers.init(trust);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), null);
    return context;
  }

  private static int freePort() throws Exception {
    try (ServerSocket free = new ServerSocket(0)) {
      return free.getLocalPort();
    }
  }

  /** Vert.x's metrics SPI, counting the TCP connections a member's clients open and close, by remote port. */
  private static final class Connections implements VertxMetricsFactory {
    private final Map<Integer, AtomicInteger> opened = new ConcurrentHashMap<>();
    private final Map<Integer, AtomicInteger> closed = new ConcurrentHashMap<>();

    int to(int port) {
      return opened.getOrDefault(port, new AtomicInteger()).get();
    }

    int closedTo(int port) {
      return closed.getOrDefault(port, new AtomicInteger()).get();
    }

    @Override
    public VertxMetrics metrics(VertxOptions options) {
      return new VertxMetrics() {
        @Override
        public TransportMetrics<?> createTcpClientMetrics(TcpClientConfig config, String protocol) {
          return new TransportMetrics<SocketAddress>() {
            @Override
            public SocketAddress connected(SocketAddress remote, String remoteName) {
              opened.computeIfAbsent(remote.port(), p -> new AtomicInteger()).incrementAndGet();
              return remote;
            }

            @Override
            public void disconnected(SocketAddress socket, SocketAddress remote) {
              closed.computeIfAbsent(remote.port(), p -> new AtomicInteger()).incrementAndGet();
            }
          };
        }
      };
    }
  }
}
