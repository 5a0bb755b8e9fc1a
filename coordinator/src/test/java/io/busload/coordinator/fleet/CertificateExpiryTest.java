package io.busload.coordinator.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.protocol.cluster.FleetTls;
import io.busload.testsupport.FleetCerts;
import io.busload.testsupport.LogCapture;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The coordinator's certificate expiry: the gauge counts down to the earliest expiry of its chain and trusted CAs, and
 * the log warns from 30 days ahead, not before.
 */
class CertificateExpiryTest {
  @TempDir Path dir;

  @Test
  void expiry_gaugeInSeconds_warnsOnlyWithin30Days() throws Exception {
    Path certs = FleetCerts.issue(dir.resolve("certs"), "--coordinator", "c1@127.0.0.1", "--days", "40");
    FleetTls.Loaded tls = FleetTls.inDirectory(certs.resolve("coordinator-c1")).load("coordinator");
    Instant notAfter = tls.certificate().getNotAfter().toInstant();
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Clock tenDaysIn = Clock.fixed(notAfter.minus(Duration.ofDays(30)), ZoneOffset.UTC);
    Clock twentyDaysLeft = Clock.fixed(notAfter.minus(Duration.ofDays(20)), ZoneOffset.UTC);

    try (LogCapture log = LogCapture.of(CertificateExpiry.class)) {
      CertificateExpiry early = new CertificateExpiry(tenDaysIn, tls);
      early.register(registry);
      assertThat(early.warnIfNear()).isFalse();
      assertThat(registry.scrape()).contains(CertificateExpiry.GAUGE + " " + (double) Duration.ofDays(30).toSeconds());

      CertificateExpiry late = new CertificateExpiry(twentyDaysLeft, tls);
      assertThat(late.warnIfNear()).isTrue();
      assertThat(log.messages()).singleElement().asString().contains("CN=c1").contains("20 days from now")
          .contains("./busload certs renew");
    }
  }
}
