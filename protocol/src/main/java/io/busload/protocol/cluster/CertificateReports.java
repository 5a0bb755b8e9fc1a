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
 * every hour. Coordinators watch their own certificates and do not report.
 */
final class CertificateReports {
  static final Duration AGAIN_AFTER = Duration.ofSeconds(15);
  static final Duration EVERY = Duration.ofHours(1);

  private CertificateReports() {}

  static void start(Vertx vertx, ClusterSettings settings, FleetTls.Loaded tls) {
    if (ClusterSettings.COORDINATOR.equals(settings.role())) {
      return;
    }
    MemberCertificates report = report(settings, tls);
    Runnable publish = () -> vertx.eventBus().publish(Addresses.MEMBER_CERTIFICATES, new MemberCertificates(
        report.schemaVersion(), report.role(), report.member(), report.certificates(), Instant.now()));
    publish.run();
    vertx.setTimer(AGAIN_AFTER.toMillis(), id -> publish.run());
    vertx.setPeriodic(EVERY.toMillis(), id -> publish.run());
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
