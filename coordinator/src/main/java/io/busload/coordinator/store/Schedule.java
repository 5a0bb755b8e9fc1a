package io.busload.coordinator.store;

import java.time.Instant;
import java.util.Map;

/**
 * A suite run on a cron timetable in a time zone, on the devices its target selects.
 *
 * @param cron a five-field Unix cron expression ("0 3 * * *"), read in {@code timeZone}
 * @param nextFireAt the fire time not yet fired; null while paused
 * @param allowOverlap fire even while the sweep of the previous fire is still running; false (the default) skips
 *     such a fire, recording why, so that a slow sweep is not joined by the next one on the same devices
 */
public record Schedule(String id, String name, String cron, String timeZone, String suite, Map<String, String> options,
    Target target, boolean paused, Instant nextFireAt, Instant createdAt, Instant updatedAt, boolean allowOverlap) {

  public Schedule {
    options = Map.copyOf(options);
  }

  /** A schedule whose fires never overlap. */
  public Schedule(String id, String name, String cron, String timeZone, String suite, Map<String, String> options,
      Target target, boolean paused, Instant nextFireAt, Instant createdAt, Instant updatedAt) {
    this(id, name, cron, timeZone, suite, options, target, paused, nextFireAt, createdAt, updatedAt, false);
  }

  /**
   * Which devices a fire runs on: every device, a GPU model (device name), a host (its name), the hosts that carry a
   * label (what the lab calls them: {@code BUSLOAD_LABELS} on the agent), or one device. Values match exactly.
   */
  public record Target(Kind kind, String value) {
    public enum Kind { ALL, MODEL, HOST, LABEL, DEVICE }

    public boolean matches(StoredDevice device) {
      return switch (kind) {
        case ALL -> true;
        case MODEL -> value.equals(device.model());
        case HOST -> value.equals(device.host());
        case LABEL -> device.labels().contains(value);
        case DEVICE -> value.equals(device.id());
      };
    }
  }

  /** One fire: the sweep it made (null when no device matched), and whether it ran late after downtime. */
  public record Fire(String scheduleId, Instant fireTime, Instant firedAt, boolean late, String sweepId, String message) {}
}
