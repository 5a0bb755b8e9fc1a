package io.busload.coordinator.api;

import io.busload.coordinator.schedule.Cron;
import io.busload.coordinator.store.Schedule;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A schedule as the API shows it, with its next five fire times (and its latest fires, when asked for one). */
record ScheduleView(String id, String name, String cron, String timeZone, String suite, Map<String, String> options,
    Schedule.Target target, boolean paused, Instant nextFireAt, List<Instant> nextFires, Instant createdAt,
    Instant updatedAt, boolean allowOverlap, List<Schedule.Fire> fires) {

  static ScheduleView of(Schedule s, Instant now, List<Schedule.Fire> fires) {
    Cron cron = Cron.parse(s.cron(), s.timeZone());
    List<Instant> next = new ArrayList<>();
    if (!s.paused() && s.nextFireAt() != null) {
      next.add(s.nextFireAt());
      next.addAll(cron.next(s.nextFireAt(), 4));
    } else if (!s.paused()) {
      next.addAll(cron.next(now, 5));
    }
    return new ScheduleView(s.id(), s.name(), s.cron(), s.timeZone(), s.suite(), s.options(), s.target(), s.paused(),
        s.paused() ? null : s.nextFireAt(), next, s.createdAt(), s.updatedAt(), s.allowOverlap(), fires);
  }
}
