package io.busload.coordinator.store;

import java.time.Instant;
import java.util.Map;

/**
 * A suite run on a cron timetable in a time zone, on the devices its target selects.
 *
 * @param cron a five-field Unix cron expression ("0 3 * * *"), read in {@code timeZone}
 * @param nextFireAt the fire time not yet fired; null while paused
 */
public record Schedule(String id, String name, String cron, String timeZone, String suite, Map<String, String> options,
    Target target, boolean paused, Instant nextFireAt, Instant createdAt, Instant updatedAt) {

  public Schedule {
    options = Map.copyOf(options);
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
