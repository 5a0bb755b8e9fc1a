package io.busload.coordinator.fleet;

import io.busload.protocol.cluster.FleetTls;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When the coordinator's certificates run out: its own chain and the CAs it trusts, whichever expires first. Members
 * issued together expire together, so the fleet stops on that day unless someone renews; this makes the day visible
 * in {@code /metrics} ({@code busload_tls_expiry_seconds}, for an alert) and in the log, with a WARN from
 * {@link #WARN_BEFORE} ahead.
 */
public final class CertificateExpiry {
  private static final Logger LOG = LoggerFactory.getLogger(CertificateExpiry.class);
  public static final Duration WARN_BEFORE = Duration.ofDays(30);
  public static final String GAUGE = "busload_tls_expiry_seconds";

  private final Clock clock;
  private volatile X509Certificate earliest;

  public CertificateExpiry(Clock clock, FleetTls.Loaded tls) {
    this.clock = clock;
    update(tls);
  }

  /** Takes the certificates of {@code tls} as the ones in use (at start, and whenever they are reloaded). */
  public void update(FleetTls.Loaded tls) {
    List<X509Certificate> all = tls.certificates();
    earliest = all.stream().min(Comparator.comparing(X509Certificate::getNotAfter)).orElseThrow();
  }

  public void register(MeterRegistry registry) {
    Gauge.builder(GAUGE, this, e -> e.remaining().toSeconds())
        .description("seconds until the earliest expiry among the coordinator's certificate chain and trusted CAs")
        .baseUnit("seconds").register(registry);
  }

  public Duration remaining() {
    return Duration.between(clock.instant(), earliest.getNotAfter().toInstant());
  }

  /** Logs a WARN when the earliest expiry is within {@link #WARN_BEFORE}; returns whether it did. */
  public boolean warnIfNear() {
    Duration left = remaining();
    if (left.compareTo(WARN_BEFORE) >= 0) {
      return false;
    }
    Instant when = earliest.getNotAfter().toInstant();
    LOG.warn("TLS certificate {} expires {} ({} days from now); renew with ./busload certs renew and copy the member"
        + " directories to their hosts", earliest.getSubjectX500Principal().getName(), when, left.toDays());
    return true;
  }
}
