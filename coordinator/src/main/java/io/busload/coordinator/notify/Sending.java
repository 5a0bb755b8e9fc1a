package io.busload.coordinator.notify;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.busload.coordinator.store.NotificationStore.Event;
import io.busload.coordinator.store.NotificationStore.Target;
import io.busload.protocol.JsonCodec;
import jakarta.mail.Message;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.HexFormat;
import java.util.Properties;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.eclipse.angus.mail.smtp.SMTPTransport;

/**
 * Sends one event to one target and says what came back. Blocking (HTTP and SMTP with timeouts): called from worker
 * threads only. What it returns is scrubbed of the target's secrets, because it goes to the delivery log.
 */
final class Sending {
  /** The header carrying {@code sha256=HEX}, the HMAC-SHA256 of {@code TIMESTAMP.BODY} under the target's key. */
  static final String SIGNATURE = "X-Busload-Signature";
  /** Seconds since the epoch, signed with the body so a receiver can refuse a replayed old message. */
  static final String TIMESTAMP = "X-Busload-Timestamp";
  /** The event's stable key: a receiver that sees it twice can drop the second. */
  static final String EVENT_KEY = "X-Busload-Event";
  private static final Duration TIMEOUT = Duration.ofSeconds(15);
  private static final int REPLY_CHARS = 500;

  /** What one attempt came to. */
  record Outcome(boolean sent, Integer code, String reply, String error) {}

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT)
      .followRedirects(HttpClient.Redirect.NEVER).build();

  Outcome send(Target target, Event event, Instant now) {
    Outcome raw;
    try {
      raw = switch (TargetKind.parse(target.kind())) {
        case SLACK -> slack(target, event);
        case WEBHOOK -> webhook(target, event, now);
        case EMAIL -> mail(target, event, now);
      };
    } catch (IOException | MessagingException | RuntimeException e) {
      raw = new Outcome(false, e instanceof MessagingException m ? smtpCode(m) : null, null, describe(e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      raw = new Outcome(false, null, null, "interrupted");
    }
    return new Outcome(raw.sent(), raw.code(), scrub(target, clip(raw.reply())), scrub(target, clip(raw.error())));
  }

  private Outcome slack(Target target, Event event) throws IOException, InterruptedException {
    ObjectNode body = JsonCodec.MAPPER.createObjectNode();
    body.put("text", Messages.plain(event));
    return post(target, JsonCodec.MAPPER.writeValueAsBytes(body), null);
  }

  private Outcome webhook(Target target, Event event, Instant now) throws IOException, InterruptedException {
    byte[] body = JsonCodec.MAPPER.writeValueAsBytes(Messages.json(event));
    String timestamp = Long.toString(now.getEpochSecond());
    String signature = "sha256=" + hmac(target.secrets().get("key"), timestamp, body);
    return post(target, body, new String[] {TIMESTAMP, timestamp, SIGNATURE, signature, EVENT_KEY, event.key()});
  }

  /** The signature a receiver recomputes: HMAC-SHA256 over {@code timestamp + "." + body}, as lower-case hex. */
  static String hmac(String key, String timestamp, byte[] body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      mac.update((timestamp + ".").getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(mac.doFinal(body));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }

  private Outcome post(Target target, byte[] body, String[] headers) throws IOException, InterruptedException {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(target.secrets().get("url").strip()))
        .timeout(TIMEOUT).header("Content-Type", "application/json; charset=utf-8")
        .header("User-Agent", "busload-coordinator")
        .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    if (headers != null) {
      request.headers(headers);
    }
    HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    boolean ok = response.statusCode() / 100 == 2;
    return new Outcome(ok, response.statusCode(), response.body(), ok ? null : "HTTP " + response.statusCode());
  }

  private Outcome mail(Target target, Event event, Instant now) throws MessagingException {
    var settings = target.settings();
    Properties props = new Properties();
    props.put("mail.smtp.host", settings.get("host"));
    props.put("mail.smtp.port", settings.get("port"));
    props.put("mail.smtp.connectiontimeout", Long.toString(TIMEOUT.toMillis()));
    props.put("mail.smtp.timeout", Long.toString(TIMEOUT.toMillis()));
    props.put("mail.smtp.writetimeout", Long.toString(TIMEOUT.toMillis()));
    boolean tls = TargetKind.STARTTLS.equals(settings.get("tls"));
    // Required, not merely enabled: a relay (or a man in the middle) that does not offer STARTTLS gets no password
    // and no message.
    props.put("mail.smtp.starttls.enable", Boolean.toString(tls));
    props.put("mail.smtp.starttls.required", Boolean.toString(tls));
    props.put("mail.smtp.ssl.checkserveridentity", "true");
    String user = settings.get("user");
    props.put("mail.smtp.auth", Boolean.toString(user != null && !user.isBlank()));
    Session session = Session.getInstance(props);
    MimeMessage message = new MimeMessage(session);
    message.setFrom(new InternetAddress(settings.get("from")));
    message.setRecipients(Message.RecipientType.TO, InternetAddress.parse(settings.get("to")));
    message.setSubject(event.title(), "UTF-8");
    message.setText(Messages.plain(event), "UTF-8");
    message.setSentDate(Date.from(now));
    message.setHeader(EVENT_KEY, event.key());
    try (Transport transport = session.getTransport("smtp")) {
      transport.connect(settings.get("host"), Integer.parseInt(settings.get("port")), user,
          target.secrets().get("password"));
      transport.sendMessage(message, message.getAllRecipients());
      SMTPTransport smtp = (SMTPTransport) transport;
      return new Outcome(true, smtp.getLastReturnCode(), smtp.getLastServerResponse(), null);
    }
  }

  private static Integer smtpCode(MessagingException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof org.eclipse.angus.mail.smtp.SMTPSendFailedException failed) {
        return failed.getReturnCode();
      }
      if (t instanceof jakarta.mail.AuthenticationFailedException) {
        return 535;
      }
    }
    return null;
  }

  /** The exception chain in a line: its classes' short names and messages. */
  private static String describe(Throwable e) {
    StringBuilder text = new StringBuilder();
    for (Throwable t = e; t != null && text.length() < REPLY_CHARS; t = t.getCause()) {
      if (!text.isEmpty()) {
        text.append(": ");
      }
      text.append(t.getClass().getSimpleName());
      if (t.getMessage() != null) {
        text.append(" (").append(t.getMessage().strip()).append(')');
      }
    }
    return text.toString();
  }

  private static String clip(String text) {
    return text == null || text.length() <= REPLY_CHARS ? text : text.substring(0, REPLY_CHARS) + "…";
  }

  /** {@code text} with every secret of the target (and a URL's path and query) replaced by {@code [secret]}. */
  static String scrub(Target target, String text) {
    if (text == null) {
      return null;
    }
    String out = text;
    for (String secret : target.secrets().values()) {
      if (secret != null && !secret.isEmpty()) {
        out = out.replace(secret, "[secret]").replace(secret.strip(), "[secret]");
      }
    }
    return out;
  }
}
