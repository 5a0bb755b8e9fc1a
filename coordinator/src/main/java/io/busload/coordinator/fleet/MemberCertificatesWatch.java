package io.busload.coordinator.fleet;

import io.busload.protocol.Addresses;
import io.busload.protocol.MemberCertificates;
import io.busload.protocol.Protocol;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hears what TLS cluster members say their certificates are ({@link Addresses#MEMBER_CERTIFICATES}) and hands it to
 * the expiry watch, so that a dashboard's certificate or a cluster agent's warns as a bridge agent's does. Every
 * coordinator hears every word (members publish), leading or not: each serves {@code GET /api/certificates}, and the
 * notices are claimed in the store, so one is sent. A word outside the bounds below is dropped with a WARN: only
 * fleet members reach the event bus, and this keeps one from filling the coordinator's memory or its log.
 */
public final class MemberCertificatesWatch {
  private static final Logger LOG = LoggerFactory.getLogger(MemberCertificatesWatch.class);
  static final int MAX_CERTIFICATES = 16;
  private static final Pattern ROLE = Pattern.compile("[A-Za-z][A-Za-z0-9-]{0,31}");
  private static final Pattern SERIAL = Pattern.compile("[0-9a-f]{1,64}");

  private MemberCertificatesWatch() {}

  /** Listens on {@code vertx}'s event bus; {@code onNew} runs (on the event loop) when a word names a new certificate. */
  public static Future<MessageConsumer<MemberCertificates>> register(Vertx vertx, CertificateExpiry expiry,
      Runnable onNew) {
    MessageConsumer<MemberCertificates> consumer = vertx.eventBus().consumer(Addresses.MEMBER_CERTIFICATES, m -> {
      MemberCertificates report = m.body();
      String problem = problem(report);
      if (problem != null) {
        LOG.warn("a member's word on its certificates dropped: {}", problem);
        return;
      }
      if (expiry.reported(report)) {
        onNew.run();
      }
    });
    return consumer.completion().map(v -> consumer);
  }

  /** Null when {@code r} is within bounds, else what is wrong, naming the field. */
  static String problem(MemberCertificates r) {
    if (r == null) {
      return "no body";
    }
    if (r.schemaVersion() != Protocol.SCHEMA_VERSION) {
      return "schemaVersion: " + r.schemaVersion() + " is not " + Protocol.SCHEMA_VERSION;
    }
    if (r.role() == null || !ROLE.matcher(r.role()).matches()) {
      return "role: a role name of at most 32 letters, digits and dashes";
    }
    if (r.member() == null || r.member().isEmpty() || r.member().length() > 255 || !printable(r.member())) {
      return "member: a host name of 1 to 255 printable characters";
    }
    if (r.certificates().isEmpty() || r.certificates().size() > MAX_CERTIFICATES) {
      return "certificates: 1 to " + MAX_CERTIFICATES + ", got " + r.certificates().size();
    }
    for (int i = 0; i < r.certificates().size(); i++) {
      MemberCertificates.Certificate c = r.certificates().get(i);
      String at = "certificates[" + i + "]";
      if (c == null) {
        return at + ": required";
      }
      if (c.role() == null || !ROLE.matcher(c.role()).matches()) {
        return at + ".role: a role name of at most 32 letters, digits and dashes";
      }
      if (c.subject() == null || c.subject().isEmpty() || c.subject().length() > 1000 || !printable(c.subject())) {
        return at + ".subject: 1 to 1000 printable characters";
      }
      if (c.serial() == null || !SERIAL.matcher(c.serial()).matches()) {
        return at + ".serial: 1 to 64 lowercase hex digits";
      }
      if (c.notAfter() == null) {
        return at + ".notAfter: required";
      }
    }
    return null;
  }

  private static boolean printable(String text) {
    return text.chars().noneMatch(ch -> ch < 0x20 || ch == 0x7f || (ch >= 0x80 && ch < 0xa0));
  }
}
