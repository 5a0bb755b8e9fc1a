package io.busload.coordinator.notify;

import jakarta.mail.internet.AddressException;
import jakarta.mail.internet.InternetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The three kinds of target and what each needs. Refusals name the field and never echo a value: a webhook URL
 * carries its token in the path, so even a malformed one is not repeated back.
 */
public enum TargetKind {
  /** A Slack-compatible incoming webhook: POST {@code {"text": ...}}; its URL is the secret. */
  SLACK(Set.of(), Set.of("url")),
  /** A JSON webhook signed with HMAC-SHA256 over the timestamp and the raw body. */
  WEBHOOK(Set.of(), Set.of("url", "key")),
  /** E-mail over SMTP; STARTTLS is required unless the relay is on this host. */
  EMAIL(Set.of("host", "port", "from", "to", "user", "tls"), Set.of("password"));

  /** The least length of an HMAC key: 128 bits of a random hex or base64 string. */
  static final int MIN_KEY_LENGTH = 16;
  public static final String STARTTLS = "starttls";
  /** Plain SMTP: only to a relay on the loopback interface, where nothing crosses a network. */
  public static final String PLAIN_LOOPBACK = "none";

  private final Set<String> settings;
  private final Set<String> secrets;

  TargetKind(Set<String> settings, Set<String> secrets) {
    this.settings = settings;
    this.secrets = secrets;
  }

  public static TargetKind parse(String kind) {
    if (kind == null) {
      throw new TargetRefused("kind", "missing; one of slack, webhook, email");
    }
    try {
      return valueOf(kind.strip().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new TargetRefused("kind", "unknown kind; one of slack, webhook, email");
    }
  }

  /** The wire name ({@code slack}, {@code webhook}, {@code email}). */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Checks settings and secrets for this kind; returns the settings with their defaults filled in. */
  public Map<String, String> check(Map<String, String> given, Map<String, String> secretsGiven) {
    for (String key : given.keySet()) {
      if (!settings.contains(key)) {
        throw new TargetRefused("settings." + key, "not a setting of a " + wireName() + " target"
            + (settings.isEmpty() ? " (it has none)" : "; known: " + String.join(", ", settings.stream().sorted()
            .toList())));
      }
    }
    for (String key : secretsGiven.keySet()) {
      if (!secrets.contains(key)) {
        throw new TargetRefused("secrets." + key, "not a secret of a " + wireName() + " target; known: "
            + String.join(", ", secrets.stream().sorted().toList()));
      }
    }
    Map<String, String> out = new LinkedHashMap<>(given);
    switch (this) {
      case SLACK -> url(secretsGiven.get("url"));
      case WEBHOOK -> {
        url(secretsGiven.get("url"));
        String key = secretsGiven.get("key");
        if (key == null || key.strip().length() < MIN_KEY_LENGTH) {
          throw new TargetRefused("secrets.key", "missing or shorter than " + MIN_KEY_LENGTH
              + " characters; the HMAC-SHA256 key the receiver verifies signatures with");
        }
      }
      case EMAIL -> mail(out, secretsGiven);
    }
    return out;
  }

  private static void url(String url) {
    if (url == null || url.isBlank()) {
      throw new TargetRefused("secrets.url", "missing; the webhook's http(s) URL");
    }
    try {
      URI uri = new URI(url.strip());
      String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
      if (!(scheme.equals("https") || scheme.equals("http")) || uri.getHost() == null) {
        throw new TargetRefused("secrets.url", "not an absolute http(s) URL with a host");
      }
    } catch (URISyntaxException e) {
      throw new TargetRefused("secrets.url", "not a URL");
    }
  }

  private static void mail(Map<String, String> out, Map<String, String> secrets) {
    String host = out.get("host");
    if (host == null || host.isBlank() || !host.strip().matches("[A-Za-z0-9.:\\[\\]-]+")) {
      throw new TargetRefused("settings.host", "missing or not a host name or address; the SMTP relay");
    }
    String port = out.getOrDefault("port", "587");
    try {
      int p = Integer.parseInt(port.strip());
      if (p < 1 || p > 65535) {
        throw new NumberFormatException();
      }
      out.put("port", Integer.toString(p));
    } catch (NumberFormatException e) {
      throw new TargetRefused("settings.port", "not a port number (1 to 65535)");
    }
    address("settings.from", out.get("from"));
    String to = out.get("to");
    if (to == null || to.isBlank()) {
      throw new TargetRefused("settings.to", "missing; one address or several separated by commas");
    }
    for (String one : to.split(",")) {
      address("settings.to", one);
    }
    String tls = out.getOrDefault("tls", STARTTLS).strip().toLowerCase(Locale.ROOT);
    if (!tls.equals(STARTTLS) && !tls.equals(PLAIN_LOOPBACK)) {
      throw new TargetRefused("settings.tls", "'starttls' (the default) or 'none' (a relay on this host only)");
    }
    if (tls.equals(PLAIN_LOOPBACK) && !loopback(host.strip())) {
      throw new TargetRefused("settings.tls", "'none' is only for a relay on this host (localhost, 127.0.0.1, ::1):"
          + " a password or a message would cross the network in clear");
    }
    out.put("tls", tls);
    boolean user = out.get("user") != null && !out.get("user").isBlank();
    boolean password = secrets.get("password") != null && !secrets.get("password").isEmpty();
    if (user != password) {
      throw new TargetRefused(user ? "secrets.password" : "settings.user", "user and password go together");
    }
  }

  private static void address(String field, String value) {
    if (value == null || value.isBlank()) {
      throw new TargetRefused(field, "missing; an e-mail address");
    }
    try {
      new InternetAddress(value.strip(), true);
    } catch (AddressException e) {
      throw new TargetRefused(field, "not an e-mail address");
    }
  }

  static boolean loopback(String host) {
    return List.of("localhost", "::1", "[::1]").contains(host.toLowerCase(Locale.ROOT))
        || host.matches("127(\\.\\d{1,3}){3}");
  }
}
