package io.busload.coordinator.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.coordinator.schedule.Cron;
import io.busload.coordinator.schedule.Scheduler;
import io.busload.coordinator.store.Schedule;
import io.busload.coordinator.store.StoredDevice;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A {@code POST /api/schedules} or {@code PUT /api/schedules/{id}} body, checked whole before anything is
 * stored: the cron parses, the zone exists, the suite and its options are known, and the target selects at
 * least one device the store knows.
 */
record ScheduleRequest(String name, Cron cron, String suite, Map<String, String> options, Schedule.Target target,
    boolean paused, boolean allowOverlap) {

  static ScheduleRequest parse(byte[] body, List<StoredDevice> devices) {
    JsonNode root = NewSweep.readBody(body);
    String suite = NewSweep.suite(root.get("suite"));
    NewSweep.kernelsOf(suite);
    Map<String, String> options = NewSweep.options(root.get("options"));
    Cron cron = cron(root);
    Schedule.Target target = target(root.get("target"));
    if (Scheduler.matching(devices, target).isEmpty()) {
      throw new BadInput("target", "selects no device: no known device has " + describe(target)
          + (devices.isEmpty() ? " (no device is known yet)" : ""));
    }
    JsonNode name = root.get("name");
    if (name != null && !name.isNull() && (!name.isTextual() || name.asText().isBlank() || name.asText().length() > 200)) {
      throw new BadInput("name", "must be a non-empty string of at most 200 characters");
    }
    JsonNode paused = root.get("paused");
    if (paused != null && !paused.isNull() && !paused.isBoolean()) {
      throw new BadInput("paused", "must be true or false");
    }
    JsonNode overlap = root.get("allowOverlap");
    if (overlap != null && !overlap.isNull() && !overlap.isBoolean()) {
      throw new BadInput("allowOverlap", "must be true or false");
    }
    return new ScheduleRequest(name == null || name.isNull() ? suite + " at " + cron.expression() : name.asText(),
        cron, suite, options, target, paused != null && paused.asBoolean(false),
        overlap != null && overlap.asBoolean(false));
  }

  private static Cron cron(JsonNode root) {
    JsonNode cron = root.get("cron");
    if (cron == null || !cron.isTextual() || cron.asText().isBlank()) {
      throw new BadInput("cron", "missing; a five-field cron expression such as \"0 3 * * *\"");
    }
    JsonNode zone = root.get("timeZone");
    if (zone != null && !zone.isNull() && !zone.isTextual()) {
      throw new BadInput("timeZone", "must be an IANA time zone name such as \"Europe/Berlin\"");
    }
    try {
      return Cron.parse(cron.asText(), zone == null || zone.isNull() ? "UTC" : zone.asText());
    } catch (Cron.InvalidZone e) {
      throw new BadInput("timeZone", e.getMessage());
    } catch (IllegalArgumentException e) {
      throw new BadInput("cron", e.getMessage());
    }
  }

  private static Schedule.Target target(JsonNode node) {
    if (node == null || node.isNull()) {
      return new Schedule.Target(Schedule.Target.Kind.ALL, null);
    }
    if (!node.isObject() || !node.path("kind").isTextual()) {
      throw new BadInput("target", "must be an object such as {\"kind\":\"model\",\"value\":\"NVIDIA H100 80GB HBM3\"};"
          + " kinds: " + KINDS);
    }
    JsonNode value = node.get("value");
    return target(node.get("kind").asText(), value != null && value.isTextual() ? value.asText() : null,
        "target.kind", "target.value");
  }

  static final String KINDS = "all, model, host, label, device";

  /**
   * A target from its kind ({@value #KINDS}, any case) and value; {@code kindField} and {@code valueField} name
   * them in a refusal. Shared by schedules and the devices preview ({@code GET /api/devices?target=&value=}), so
   * both select the same devices for the same words.
   */
  static Schedule.Target target(String kindText, String value, String kindField, String valueField) {
    Schedule.Target.Kind kind;
    try {
      kind = Schedule.Target.Kind.valueOf(kindText.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new BadInput(kindField, "unknown selector '" + kindText + "'; known: " + KINDS);
    }
    if (kind == Schedule.Target.Kind.ALL) {
      return new Schedule.Target(kind, null);
    }
    if (value == null || value.isBlank()) {
      throw new BadInput(valueField, "a " + kind.name().toLowerCase(Locale.ROOT) + " selector needs a value");
    }
    if (value.length() > 255 || value.indexOf('\u0000') >= 0) {
      // What the schedules table holds; a longer value would fail the insert with a 500.
      throw new BadInput(valueField, "at most 255 characters, without NUL");
    }
    return new Schedule.Target(kind, value);
  }

  static String describe(Schedule.Target target) {
    return target.kind() == Schedule.Target.Kind.ALL ? "any device"
        : target.kind().name().toLowerCase(Locale.ROOT) + " '" + target.value() + "'";
  }
}
