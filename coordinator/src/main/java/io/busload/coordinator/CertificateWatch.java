package io.busload.coordinator;

import io.busload.coordinator.fleet.AgentBridge;
import io.busload.coordinator.fleet.CertificateExpiry;
import io.busload.coordinator.fleet.MemberCertificatesWatch;
import io.busload.coordinator.notify.Notifier;
import io.busload.protocol.cluster.ClusterSettings;
import io.busload.protocol.cluster.FleetTls;
import io.busload.protocol.cluster.TlsReload;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's certificates over time: renewed files in the member directory take effect for new connections
 * to the bridge and the REST API without a restart, and certificates near expiry (the coordinator's own, those
 * bridge agents present, and those cluster members say they run on) are warned of and noticed. Both read parts the verticle builds at different moments (the notifier,
 * the bridge, the listening REST server), so they meet here rather than in one of those parts. Runs on the verticle's
 * event loop; the files are read on workers by {@link TlsReload}.
 */
final class CertificateWatch {
  /** The verticle's logger, beside its other lines about the bridge and the REST API. */
  private static final Logger LOG = LoggerFactory.getLogger(CoordinatorVerticle.class);
  /** How often the certificate files are checked for renewal. */
  private static final Duration TLS_RELOAD_EVERY = Duration.ofSeconds(5);
  /**
   * How often certificates are looked at for their expiry: each is warned of once a day, and one seen for the first
   * time (an agent's, at its connection; a renewed one) is looked at then.
   */
  private static final Duration CERTIFICATES_EVERY = Duration.ofHours(1);

  private final Vertx vertx;
  private final CoordinatorSettings settings;
  private final Notifier notifier;
  /** Null without fleet certificates (plain TCP on loopback): there is then no certificate to watch for expiry. */
  private final CertificateExpiry expiry;
  private long timer = -1;

  CertificateWatch(Vertx vertx, CoordinatorSettings settings, Notifier notifier, CertificateExpiry expiry) {
    this.vertx = vertx;
    this.settings = settings;
    this.notifier = notifier;
    this.expiry = expiry;
  }

  /** Registers the expiry gauge, looks at the certificates now and then every {@link #CERTIFICATES_EVERY}. */
  void start(MeterRegistry registry) {
    if (expiry == null) {
      return;
    }
    expiry.register(registry);
    // Dashboards and cluster-path agents say which certificates their event bus runs on.
    MemberCertificatesWatch.register(vertx, expiry, this::check);
    check();
    timer = vertx.setPeriodic(CERTIFICATES_EVERY.toMillis(), id -> check());
  }

  /** Certificates within the warning time of their expiry, for {@code GET /api/certificates}. */
  List<CertificateExpiry.Expiring> near() {
    return expiry == null ? List.of() : expiry.near();
  }

  /** An agent's certificate the bridge verified: one not seen before is looked at now. */
  void agent(X509Certificate certificate) {
    if (expiry != null && expiry.agent(certificate)) {
      check();
    }
  }

  /**
   * Reloads renewed certificates into the bridge (null when this coordinator serves none) and the listening REST
   * server, without dropping connected agents. The event bus takes them on its own, as every TLS cluster member's
   * does ({@code Cluster.start}).
   */
  void reload(AgentBridge bridge, HttpServer server) {
    FleetTls tls = settings.cluster().tls();
    if (tls == null) {
      return;
    }
    TlsReload.watch(vertx, tls, ClusterSettings.COORDINATOR, TLS_RELOAD_EVERY,
        renewed -> {
          if (bridge != null) {
            bridge.updateTls(renewed).onFailure(e -> LOG.warn("the bridge kept its certificates: {}", e.toString()));
          }
          if (settings.restTls()) {
            server.updateSSLOptions(renewed.httpsSsl())
                .onFailure(e -> LOG.warn("the REST API kept its certificates: {}", e.toString()));
          }
          if (expiry != null) {
            expiry.update(renewed);
            check();
          }
        });
  }

  void stop() {
    if (timer >= 0) {
      vertx.cancelTimer(timer);
    }
  }

  /**
   * Certificates near expiry: a WARN per certificate per day, and a notice per certificate and expiry (claimed in the
   * store, so each coordinator may tell it and it is sent once).
   */
  private void check() {
    expiry.warnIfNear();
    notifier.certificatesNearExpiry(expiry.near().stream()
        .map(e -> new Notifier.Certificate(e.role(), e.subject(), e.serial(), e.notAfter())).toList());
  }
}
