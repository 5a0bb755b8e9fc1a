package io.busload.dashboard.coordinator;

import java.util.Map;

/** What a schedule is made of, as {@code POST}/{@code PUT /api/schedules} take it. */
public record ScheduleInput(String name, String cron, String timeZone, String suite, Map<String, String> options,
    Target target, boolean paused) {

  public ScheduleInput {
    options = options == null ? Map.of() : Map.copyOf(options);
  }
}
