package io.busload.protocol.cluster;

import com.hazelcast.cluster.Member;
import com.hazelcast.config.Config;
import com.hazelcast.config.JavaSerializationFilterConfig;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import io.busload.protocol.Codecs;
import io.busload.protocol.compat.vertx.EventBusTls;
import io.busload.protocol.compat.vertx.VertxInternals;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.eventbus.EventBusOptions;
import io.vertx.spi.cluster.hazelcast.ConfigUtil;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.security.cert.X509Certificate;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Starts a clustered Vert.x with the fleet's Hazelcast settings and every codec registered. */
public final class Cluster {
  private static final Logger LOG = LoggerFactory.getLogger(Cluster.class);
  /** How often a TLS member's certificate files are checked for renewal. */
  static final java.time.Duration TLS_RELOAD_EVERY = java.time.Duration.ofSeconds(5);

  private Cluster() {}

  /**
   * Starts the member. With {@link ClusterSettings#tls()} the event bus is TLS with client certificates required
   * both ways; the stores are read and checked first, so a wrong password, an expired certificate or one
   * issued for another role fails here, naming the file. Reads files: call it off the event loop.
   */
  public static Future<Vertx> start(ClusterSettings settings) {
    EventBusOptions eventBus = new EventBusOptions()
        .setHost(settings.host())
        .setPort(settings.eventBusPort())
        .setClusterPublicHost(settings.publicHost());
    FleetTls.Loaded tls = null;
    if (settings.tls() != null) {
      try {
        tls = settings.tls().load(settings.role());
      } catch (IllegalStateException e) {
        return Future.failedFuture(e);
      }
      tls.apply(eventBus);
      X509Certificate certificate = tls.certificate();
      LOG.info("event bus on {}: TLS, peers must present a fleet certificate; this member is {} (issued by {}, "
          + "valid until {})", settings.host(), certificate.getSubjectX500Principal(),
          certificate.getIssuerX500Principal(), certificate.getNotAfter().toInstant());
    } else if (ClusterSettings.loopback(settings.host())) {
      LOG.info("event bus on {}: plain TCP (loopback, no BUSLOAD_TLS_DIR)", settings.host());
    } else {
      LOG.warn("event bus on {}: plain TCP without TLS (BUSLOAD_TLS=off): any process that reaches this port or the "
          + "cluster port can read results and fake acks", settings.host());
    }
    FleetClusterManager manager = new FleetClusterManager(hazelcastConfig(settings));
    VertxOptions options = new VertxOptions().setEventBusOptions(eventBus);
    FleetTls.Loaded loaded = tls;
    return Vertx.builder().with(options).withClusterManager(manager).buildClustered().map(Codecs::register)
        .map(vertx -> {
          if (loaded != null) {
            CertificateReports reports = CertificateReports.start(vertx, settings, loaded);
            reloadEventBusTls(vertx, settings, reports);
          }
          return vertx;
        });
  }

  /**
   * Renewed certificate files ({@code ./busload certs renew}, copied to this host) reach the event bus of a running
   * member: new connections, to it and from it, handshake with them; open connections are kept, so the member stays
   * in the fleet. Files that do not load are logged and the certificates in use kept ({@link TlsReload}).
   */
  private static void reloadEventBusTls(Vertx vertx, ClusterSettings settings, CertificateReports reports) {
    TlsReload.watch(vertx, settings.tls(), settings.role(), TLS_RELOAD_EVERY, renewed ->
        EventBusTls.update(vertx, renewed.eventBusServerSsl(), renewed.eventBusClientSsl())
            .onSuccess(v -> {
              LOG.info("event bus on {}: new connections use the renewed certificate {} (valid until {})",
                  settings.host(), renewed.certificate().getSubjectX500Principal(),
                  renewed.certificate().getNotAfter().toInstant());
              reports.renewed(renewed);
            })
            .onFailure(e -> LOG.error("event bus on {}: the renewed certificates were not taken, the ones in use are "
                + "kept until this member restarts: {}", settings.host(), e.toString())));
  }

  /**
   * Members of {@code vertx}'s cluster that say they are coordinators, as {@code host:port}. An agent sends nothing
   * while this is empty (a member with the wrong cluster name forms a cluster of its own:
   * docs/design/invariants.md#coordinator-presence). The
   * role is a Hazelcast member attribute, which any member can claim: this finds mistakes, it authenticates
   * nobody; the fleet certificate does that. Empty for a Vert.x that is not clustered over Hazelcast.
   */
  public static List<String> coordinators(Vertx vertx) {
    HazelcastClusterManager manager = hazelcast(vertx);
    if (manager == null || !manager.getHazelcastInstance().getLifecycleService().isRunning()) {
      return List.of();
    }
    return manager.getHazelcastInstance().getCluster().getMembers().stream()
        .filter(member -> ClusterSettings.COORDINATOR.equals(member.getAttribute(ClusterSettings.ROLE_ATTRIBUTE)))
        .map(Member::getAddress)
        .map(address -> address.getHost() + ":" + address.getPort())
        .toList();
  }

  /** The Hazelcast cluster manager of a clustered {@code vertx} that has joined; null for any other Vert.x. */
  public static HazelcastClusterManager hazelcast(Vertx vertx) {
    return VertxInternals.clusterManager(vertx).orElse(null) instanceof HazelcastClusterManager manager
        && manager.getHazelcastInstance() != null ? manager : null;
  }

  /** The fleet's cluster manager of a {@code vertx} that {@link #start} made and that has joined; else null. */
  static FleetClusterManager fleet(Vertx vertx) {
    return hazelcast(vertx) instanceof FleetClusterManager manager ? manager : null;
  }

  /** True when {@code vertx} is not clustered (nothing to check) or a coordinator-role member is in its cluster. */
  public static boolean coordinatorPresent(Vertx vertx) {
    if (VertxInternals.clusterManager(vertx).isEmpty()) {
      return true;
    }
    return !coordinators(vertx).isEmpty();
  }

  /**
   * Joins, retrying every {@code retryDelay} until it succeeds or {@code deadline} passes. A lite member
   * (agent, dashboard) cannot start clustered Vert.x while no coordinator holds the cluster's data: Hazelcast
   * answers "all nodes in the cluster are lite members". Hosts reboot in any order, so they wait for one.
   * Blocks the calling thread: call it from a main thread, never from an event loop. A fleet certificate that
   * cannot be used fails at once ({@link IllegalStateException}), without retrying.
   */
  public static Vertx join(ClusterSettings settings, java.time.Duration retryDelay, java.time.Duration deadline)
      throws InterruptedException {
    if (settings.tls() != null) {
      // A certificate problem does not go away by waiting: fail now, not after a year of retries.
      settings.tls().load(settings.role());
    }
    long giveUp = System.nanoTime() + deadline.toNanos();
    for (int attempt = 1; ; attempt++) {
      try {
        return start(settings).await(120, java.util.concurrent.TimeUnit.SECONDS);
      } catch (RuntimeException | java.util.concurrent.TimeoutException e) {
        if (System.nanoTime() + retryDelay.toNanos() > giveUp) {
          throw new IllegalStateException("could not join cluster '" + settings.clusterName() + "' after "
              + attempt + " attempt(s): " + e.getMessage(), e);
        }
        LOG.warn(
            "joining cluster '{}' failed (attempt {}: {}); no coordinator yet? retrying in {} s",
            settings.clusterName(), attempt, e.getMessage(), retryDelay.toSeconds());
        Thread.sleep(retryDelay.toMillis());
      }
    }
  }

  /**
   * The classes this member accepts in Java serialization from other members. Hazelcast uses it for every
   * {@link java.io.Serializable} value that is not one of its own types (a map entry, an exception in an error reply,
   * an executor task), and any member can send one: Hazelcast open source authenticates no member, and a class's
   * {@code readObject} runs while it is read, before anything looks at it. So only Hazelcast's classes, Vert.x's
   * cluster manager's, the JDK's and arrays are read; any other class fails its read, naming it. The JDK packages
   * that known gadget chains pass through (RMI, JMX, JNDI, beans, scripting) are refused as well. Busload's own
   * records never travel this way: they cross the event bus in JSON codecs ({@link Codecs}), and Vert.x's event bus
   * reads Java serialization only for byte arrays and numbers.
   */
  static JavaSerializationFilterConfig serializationFilter() {
    JavaSerializationFilterConfig filter = new JavaSerializationFilterConfig().setDefaultsDisabled(true);
    filter.getWhitelist().addPrefixes("com.hazelcast.", "io.vertx.spi.cluster.hazelcast.", "java.", "javax.", "[");
    filter.getBlacklist()
        .addPrefixes("java.rmi.", "javax.management.", "javax.naming.", "java.beans.", "javax.script.");
    return filter;
  }

  /** Starting from Vert.x's own config keeps its map settings; then multicast off, explicit members. */
  static Config hazelcastConfig(ClusterSettings settings) {
    Config config = ConfigUtil.loadConfig();
    config.setClusterName(settings.clusterName());
    config.setLiteMember(settings.liteMember());
    config.getMemberAttributeConfig().setAttribute(ClusterSettings.ROLE_ATTRIBUTE, settings.role());
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.setProperty("hazelcast.logging.type", "slf4j");
    config.setProperty("hazelcast.socket.bind.any", "false");
    // A gone member noticed in about 10 s, not Hazelcast's 60 s (docs/design/invariants.md#cluster-settings).
    config.setProperty("hazelcast.heartbeat.interval.seconds", "1");
    config.setProperty("hazelcast.max.no.heartbeat.seconds", "10");
    config.setProperty("hazelcast.merge.first.run.delay.seconds", "10");
    config.setProperty("hazelcast.merge.next.run.delay.seconds", "5");
    config.setProperty("hazelcast.wait.seconds.before.join", "0");
    config.getSerializationConfig().setJavaSerializationFilterConfig(serializationFilter());
    NetworkConfig network = config.getNetworkConfig();
    network.setPort(settings.clusterPort()).setPortAutoIncrement(true).setPortCount(20);
    network.setPublicAddress(settings.publicHost());
    network.getInterfaces().setEnabled(true).clear().addInterface(settings.host());
    JoinConfig join = network.getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    join.getTcpIpConfig().setEnabled(true).setMembers(settings.members());
    return config;
  }
}
