package io.busload.coordinator.notify;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.busload.coordinator.store.NotificationStore.Event;
import io.busload.protocol.Clocks;
import io.busload.protocol.JsonCodec;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/** How an event reads: one plain text for Slack and e-mail, one JSON object for webhooks, and the numbers' words. */
final class Messages {
  private Messages() {}

  /** Title, sentence and link, for a chat line or a mail body. */
  static String plain(Event e) {
    return e.title() + "\n" + e.message() + "\n" + (e.link() == null ? "(no dashboard address is set: PUT"
        + " /api/notifications/settings with dashboardUrl)" : e.link());
  }

  /** The webhook body: the event with its typed details, so a receiver needs no parsing of prose. */
  record Webhook(String key, String kind, String severity, String title, String text, String link, String occurredAt,
      JsonNode details) {}

  static Webhook json(Event e) {
    try {
      return new Webhook(e.key(), e.kind(), e.severity(), e.title(), e.message(), e.link(), e.occurredAt().toString(),
          JsonCodec.MAPPER.readTree(e.detailsJson()));
    } catch (JsonProcessingException ex) {
      throw new IllegalStateException("notification details are not JSON", ex);
    }
  }

  /** Bytes per second as people read them: TB/s or GB/s with 3 significant decimals. */
  static String bandwidth(double bytesPerSecond) {
    return bytesPerSecond >= 1e12 ? String.format(Locale.ROOT, "%.3f TB/s", bytesPerSecond / 1e12)
        : String.format(Locale.ROOT, "%.1f GB/s", bytesPerSecond / 1e9);
  }

  /** A fraction as a signed percentage with one decimal ({@code -5.0%}). */
  static String percent(double fraction) {
    return String.format(Locale.ROOT, "%+.1f%%", fraction * 100);
  }

  /** The clocks in words, or why there are none. */
  static String clocks(Clocks c) {
    if (c == null || c.reading() != Clocks.Reading.READ) {
      return "clocks not read";
    }
    return "SM clock " + range(c.smMinMHz(), c.smMaxMHz()) + ", memory clock " + range(c.memMinMHz(), c.memMaxMHz())
        + (c.throttledSamplesDropped() > 0 ? ", " + c.throttledSamplesDropped() + " throttled sample(s) dropped" : "");
  }

  private static String range(Integer min, Integer max) {
    if (min == null && max == null) {
      return "unknown";
    }
    if (min == null || max == null || min.equals(max)) {
      return (min != null ? min : max) + " MHz";
    }
    return min + "–" + max + " MHz";
  }

  /** A query value as a URL carries it (spaces as %20, which every router reads the same). */
  static String query(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
  }

  /** The dashboard's base address without a trailing slash, or null when none is set. */
  static String base(String dashboardUrl) {
    if (dashboardUrl == null || dashboardUrl.isBlank()) {
      return null;
    }
    String b = dashboardUrl.strip();
    return b.endsWith("/") ? b.substring(0, b.length() - 1) : b;
  }
}
