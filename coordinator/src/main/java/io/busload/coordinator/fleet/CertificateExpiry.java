package io.busload.coordinator.fleet;

import io.busload.protocol.cluster.FleetTls;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When the certificates the fleet runs on run out: the coordinator's own chain and the CAs it trusts, the agent
 * certificates its bridge has seen, and those that cluster members (agents on the cluster path, dashboards) say they
 * run on ({@link #reported}). Members issued together expire together, so the fleet stops on that day unless
 * someone renews; this makes the day visible in {@code /metrics} ({@code busload_tls_expiry_seconds}, the
 * coordinator's earliest, for an alert), in the log (a WARN per certificate per day from {@link #WARN_BEFORE}
 * ahead), and to the notices and the dashboard through {@link #near}.
 */
public final class CertificateExpiry {
  private static final Logger LOG = LoggerFactory.getLogger(CertificateExpiry.class);
  public static final Duration WARN_BEFORE = Duration.ofDays(30);
  /** The setting of how many days ahead of an expiry the warnings start ({@link #WARN_BEFORE} by default). */
  public static final String WARN_DAYS_SETTING = "BUSLOAD_CERT_WARN_DAYS";
  public static final String GAUGE = "busload_tls_expiry_seconds";

  /**
   * A certificate within the warning's reach, or past its expiry ({@code daysLeft} negative).
   *
   * @param role the fleet role it is issued for ({@code coordinator}, {@code agent}, ...), or {@code CA}
   * @param serial its serial number in hex: with the subject, which certificate of a renewed name this is
   */
  public record Expiring(String role, String subject, String serial, Instant notAfter, long daysLeft) {}

  private final Clock clock;
  private final Duration warnBefore;
  private volatile List<X509Certificate> own;
  private volatile X509Certificate earliest;
  /** The newest agent certificate seen per subject: a renewed one replaces the one it renews. */
  private final Map<String, X509Certificate> agents = new ConcurrentHashMap<>();
  /**
   * What each cluster member said it runs on, by role, host and its own certificate's subject; a member's newest word
   * replaces its last, and a member silent for {@link #REPORTS_KEPT} is dropped (it left; its certificates matter no
   * more). At most {@link #MAX_MEMBERS} members are kept.
   */
  private final Map<String, Reported> members = new ConcurrentHashMap<>();
  static final Duration REPORTS_KEPT = Duration.ofHours(3);
  static final int MAX_MEMBERS = 10_000;

  private record Reported(Instant heardAt, List<io.busload.protocol.MemberCertificates.Certificate> certificates) {}

  /** The day (UTC) each certificate was last warned of, by subject and serial. */
  private final Map<String, LocalDate> warned = new ConcurrentHashMap<>();

  public CertificateExpiry(Clock clock, FleetTls.Loaded tls) {
    this(clock, WARN_BEFORE, tls);
  }

  public CertificateExpiry(Clock clock, Duration warnBefore, FleetTls.Loaded tls) {
    this.clock = clock;
    this.warnBefore = warnBefore;
    update(tls);
  }

  /** The warning's reach from {@link #WARN_DAYS_SETTING} in {@code env}, or its default; bad input names it. */
  public static Duration warnBefore(Map<String, String> env) {
    String value = env.get(WARN_DAYS_SETTING);
    if (value == null || value.isBlank()) {
      return WARN_BEFORE;
    }
    try {
      int days = Integer.parseInt(value.strip());
      if (days < 1) {
        throw new IllegalArgumentException(WARN_DAYS_SETTING + ": at least 1, got " + days);
      }
      return Duration.ofDays(days);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(WARN_DAYS_SETTING + ": not a whole number of days: '" + value.strip() + "'");
    }
  }

  /** Takes the certificates of {@code tls} as the ones in use (at start, and whenever they are reloaded). */
  public void update(FleetTls.Loaded tls) {
    List<X509Certificate> all = tls.certificates();
    own = List.copyOf(all);
    earliest = all.stream().min(Comparator.comparing(X509Certificate::getNotAfter)).orElseThrow();
  }

  /**
   * An agent certificate the bridge verified; returns whether it is one not seen before (a new subject, or a newer
   * certificate of one), so the caller can look at the expiries again.
   */
  public boolean agent(X509Certificate certificate) {
    String subject = certificate.getSubjectX500Principal().getName();
    X509Certificate before = agents.get(subject);
    if (before != null && !certificate.getNotAfter().after(before.getNotAfter())) {
      return false;
    }
    agents.put(subject, certificate);
    return true;
  }

  /**
   * A cluster member's word on its certificates ({@code MemberCertificatesWatch} checked its bounds); returns whether
   * it names a certificate not heard of from that member before, so the caller can look at the expiries again.
   */
  public boolean reported(io.busload.protocol.MemberCertificates report) {
    Instant now = clock.instant();
    members.values().removeIf(r -> r.heardAt().isBefore(now.minus(REPORTS_KEPT)));
    String key = report.role() + "|" + report.member() + "|" + report.certificates().getFirst().subject();
    if (!members.containsKey(key) && members.size() >= MAX_MEMBERS) {
      return false;
    }
    Reported before = members.put(key, new Reported(now, report.certificates()));
    return before == null || !before.certificates().equals(report.certificates());
  }

  public void register(MeterRegistry registry) {
    Gauge.builder(GAUGE, this, e -> e.remaining().toSeconds())
        .description("seconds until the earliest expiry among the coordinator's certificate chain and trusted CAs")
        .baseUnit("seconds").register(registry);
  }

  public Duration remaining() {
    return Duration.between(clock.instant(), earliest.getNotAfter().toInstant());
  }

  public Duration warnBefore() {
    return warnBefore;
  }

  /** The certificates that expire within the warning's reach (or have expired), soonest first. */
  public List<Expiring> near() {
    Instant now = clock.instant();
    List<X509Certificate> all = new ArrayList<>(own);
    all.addAll(agents.values());
    Map<String, Expiring> bySerial = new java.util.LinkedHashMap<>();
    for (X509Certificate c : all) {
      Instant notAfter = c.getNotAfter().toInstant();
      bySerial.putIfAbsent(c.getSubjectX500Principal().getName() + "#" + c.getSerialNumber().toString(16),
          new Expiring(role(c), c.getSubjectX500Principal().getName(), c.getSerialNumber().toString(16), notAfter,
              Duration.between(now, notAfter).toDays()));
    }
    for (Reported r : members.values()) {
      if (r.heardAt().isBefore(now.minus(REPORTS_KEPT))) {
        continue;
      }
      for (var c : r.certificates()) {
        bySerial.putIfAbsent(c.subject() + "#" + c.serial(), new Expiring(c.role(), c.subject(), c.serial(),
            c.notAfter(), Duration.between(now, c.notAfter()).toDays()));
      }
    }
    return bySerial.values().stream()
        .filter(e -> Duration.between(now, e.notAfter()).compareTo(warnBefore) < 0)
        .sorted(Comparator.comparing(Expiring::notAfter))
        .toList();
  }

  /**
   * Logs a WARN for each certificate within the warning's reach that was not warned of today (UTC); returns whether
   * it logged any.
   */
  public boolean warnIfNear() {
    LocalDate today = LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC);
    boolean any = false;
    for (Expiring e : near()) {
      LocalDate last = warned.put(e.subject() + "#" + e.serial(), today);
      if (today.equals(last)) {
        continue;
      }
      any = true;
      LOG.warn("TLS certificate {} ({}) expires {} ({} days from now); renew with ./busload certs renew and copy the"
          + " member directories to their hosts", e.subject(), e.role(), e.notAfter(), e.daysLeft());
    }
    return any;
  }

  private static String role(X509Certificate c) {
    if (c.getBasicConstraints() >= 0) {
      return "CA";
    }
    String role = FleetTls.roleOf(c);
    return role == null ? "member" : role;
  }
}
