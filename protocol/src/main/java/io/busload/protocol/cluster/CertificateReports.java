package io.busload.protocol.cluster;

import io.busload.protocol.Addresses;
import io.busload.protocol.MemberCertificates;
import io.busload.protocol.Protocol;
import io.vertx.core.Vertx;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A TLS cluster member saying which certificates its event bus runs on ({@link MemberCertificates}), so that the
 * coordinators warn of their expiry: at join, again shortly after (a coordinator that joined meanwhile hears it), then
 * every hour, and at once when renewed certificates were taken. Coordinators watch their own certificates and do not
 * report.
 */
final class CertificateReports {
  static final Duration AGAIN_AFTER = Duration.ofSeconds(15);
  static final Duration EVERY = Duration.ofHours(1);

  private final Vertx vertx;
  private final ClusterSettings settings;
  private volatile MemberCertificates report;

  private CertificateReports(Vertx vertx, ClusterSettings settings, MemberCertificates report) {
    this.vertx = vertx;
    this.settings = settings;
    this.report = report;
  }

  static CertificateReports start(Vertx vertx, ClusterSettings settings, FleetTls.Loaded tls) {
    CertificateReports reports = new CertificateReports(vertx, settings, report(settings, tls));
    if (reports.reporting()) {
      reports.publish();
      vertx.setTimer(AGAIN_AFTER.toMillis(), id -> reports.publish());
      vertx.setPeriodic(EVERY.toMillis(), id -> reports.publish());
    }
    return reports;
  }

  /** The event bus took renewed certificates: they are what this member reports from now on, starting now. */
  void renewed(FleetTls.Loaded tls) {
    report = report(settings, tls);
    if (reporting()) {
      publish();
    }
  }

  private boolean reporting() {
    return !ClusterSettings.COORDINATOR.equals(settings.role());
  }

  private void publish() {
    MemberCertificates now = report;
    vertx.eventBus().publish(Addresses.MEMBER_CERTIFICATES, new MemberCertificates(now.schemaVersion(), now.role(),
        now.member(), now.certificates(), Instant.now()));
  }

  static MemberCertificates report(ClusterSettings settings, FleetTls.Loaded tls) {
    List<MemberCertificates.Certificate> certificates = new ArrayList<>();
    certificates.add(describe(tls.certificate(), settings.role()));
    for (X509Certificate c : tls.certificates()) {
      if (!c.equals(tls.certificate())) {
        certificates.add(describe(c, c.getBasicConstraints() >= 0 ? "CA" : settings.role()));
      }
    }
    return new MemberCertificates(Protocol.SCHEMA_VERSION, settings.role(), settings.host(), certificates,
        Instant.now());
  }

  private static MemberCertificates.Certificate describe(X509Certificate c, String role) {
    return new MemberCertificates.Certificate(role, c.getSubjectX500Principal().getName(),
        c.getSerialNumber().toString(16), c.getNotAfter().toInstant());
  }
}
