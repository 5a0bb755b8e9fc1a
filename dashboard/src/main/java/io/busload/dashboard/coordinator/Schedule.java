package io.busload.dashboard.coordinator;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/** A schedule as the coordinator stores it, with its next fire times ({@code GET /api/schedules}). */
public record Schedule(String id, String name, String cron, String timeZone, String suite, Map<String, String> options,
    Target target, boolean paused, Instant nextFireAt, List<Instant> nextFires, Instant createdAt, Instant updatedAt) {

  public Schedule {
    options = options == null ? Map.of() : Map.copyOf(options);
    nextFires = nextFires == null ? List.of() : List.copyOf(nextFires);
  }

  public ScheduleInput input() {
    return new ScheduleInput(name, cron, timeZone, suite, options, target, paused);
  }
}
