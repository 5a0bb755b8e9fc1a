package io.busload.coordinator.store;

import com.fasterxml.jackson.core.type.TypeReference;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Schedules and their fires in the store. A fire is claimed by inserting its (schedule, time) row, with the
 * schedule row locked: two coordinators racing for the same fire create one sweep between them.
 */
public final class ScheduleStore {
  private static final TypeReference<Map<String, String>> OPTIONS = new TypeReference<>() {};
  private static final String COLUMNS = "id, name, cron, time_zone, suite, options_json, selector_kind, selector_value,"
      + " paused, next_fire_at, created_at, updated_at, allow_overlap";

  private final Database db;

  public ScheduleStore(Database db) {
    this.db = db;
  }

  public void insert(Schedule schedule) {
    db.inTransaction(c -> Database.update(c, "INSERT INTO schedules (" + COLUMNS
        + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", s -> bind(s, schedule)));
  }

  /** Replaces a schedule's definition; returns false when there is none with its id. */
  public boolean update(Schedule schedule) {
    return db.inTransaction(c -> Database.update(c, "UPDATE schedules SET id = ?, name = ?, cron = ?, time_zone = ?,"
        + " suite = ?, options_json = ?, selector_kind = ?, selector_value = ?, paused = ?, next_fire_at = ?,"
        + " created_at = ?, updated_at = ?, allow_overlap = ? WHERE id = ?", s -> {
          bind(s, schedule);
          s.setString(14, schedule.id());
        }) == 1);
  }

  public boolean delete(String id) {
    return db.inTransaction(c -> Database.update(c, "DELETE FROM schedules WHERE id = ?", s -> s.setString(1, id)) == 1);
  }

  public Optional<Schedule> find(String id) {
    return db.first("SELECT " + COLUMNS + " FROM schedules WHERE id = ?", s -> s.setString(1, id), ScheduleStore::read);
  }

  public List<Schedule> all() {
    return db.list("SELECT " + COLUMNS + " FROM schedules ORDER BY created_at, id", Database.Binder.NONE,
        ScheduleStore::read);
  }

  /** Unpaused schedules whose next fire time has come. */
  public List<Schedule> due(Instant now) {
    return db.list("SELECT " + COLUMNS + " FROM schedules WHERE NOT paused AND next_fire_at <= ? ORDER BY next_fire_at",
        s -> s.setObject(1, Database.timestamp(now)), ScheduleStore::read);
  }

  /** The newest fires of a schedule first. */
  public List<Schedule.Fire> fires(String scheduleId, int limit) {
    return db.list("SELECT schedule_id, fire_time, fired_at, late, sweep_id, message FROM schedule_fires"
        + " WHERE schedule_id = ? ORDER BY fire_time DESC LIMIT ?", s -> {
          s.setString(1, scheduleId);
          s.setInt(2, limit);
        }, rs -> new Schedule.Fire(rs.getString(1), Database.instant(rs, 2), Database.instant(rs, 3),
            rs.getBoolean(4), rs.getString(5), rs.getString(6)));
  }

  /** What a fire needs to know beyond the schedule: the matching devices' run targets, and the next fire time. */
  public interface FirePlan {
    List<RunTarget> targets(Schedule schedule);

    /** The first fire time strictly after {@code now}: missed fires in between are not made up one by one. */
    Instant nextAfter(Schedule schedule, Instant now);
  }

  /**
   * Fires {@code schedule} for its {@code next_fire_at} once: locks the row, checks the fire is still due and
   * not yet claimed, records it, creates the sweep (unless no device matches) and moves the next fire time past
   * {@code now}. Returns the fire, or empty when another coordinator (or an update) got there first.
   */
  public Optional<Fired> fire(String scheduleId, Instant now, java.time.Duration lateAfter, FirePlan plan) {
    return db.inTransaction(c -> {
      Optional<Schedule> locked = Database.first(c, "SELECT " + COLUMNS + " FROM schedules WHERE id = ? FOR UPDATE",
          s -> s.setString(1, scheduleId), ScheduleStore::read);
      if (locked.isEmpty()) {
        return Optional.<Fired>empty();
      }
      Schedule schedule = locked.get();
      if (schedule.paused() || schedule.nextFireAt() == null || schedule.nextFireAt().isAfter(now)) {
        return Optional.<Fired>empty();
      }
      Instant fireTime = schedule.nextFireAt();
      boolean late = now.isAfter(fireTime.plus(lateAfter));
      if (Database.update(c, "INSERT INTO schedule_fires (schedule_id, fire_time, fired_at, late)"
          + " VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING", s -> {
            s.setString(1, scheduleId);
            s.setObject(2, Database.timestamp(fireTime));
            s.setObject(3, Database.timestamp(now));
            s.setBoolean(4, late);
          }) == 0) {
        return Optional.<Fired>empty();
      }
      Optional<String> running = schedule.allowOverlap() ? Optional.empty() : unfinished(c, scheduleId);
      List<RunTarget> targets = running.isPresent() ? List.of() : plan.targets(schedule);
      Sweep sweep = null;
      String message = null;
      if (running.isPresent()) {
        message = "skipped: " + running.get() + " (allowOverlap lets fires overlap)";
      } else if (targets.isEmpty()) {
        message = "no device matches " + schedule.target().kind().name().toLowerCase(java.util.Locale.ROOT)
            + (schedule.target().value() == null ? "" : " '" + schedule.target().value() + "'");
      } else {
        sweep = SweepStore.insertSweep(c, schedule.suite(), schedule.options(), targets, now, scheduleId, fireTime, late);
      }
      String sweepId = sweep == null ? null : sweep.id();
      String said = message;
      Database.update(c, "UPDATE schedule_fires SET sweep_id = ?, message = ? WHERE schedule_id = ? AND fire_time = ?",
          s -> {
            Database.strings(s, sweepId, said, scheduleId);
            s.setObject(4, Database.timestamp(fireTime));
          });
      Database.update(c, "UPDATE schedules SET next_fire_at = ? WHERE id = ?", s -> {
        s.setObject(1, Database.timestamp(plan.nextAfter(schedule, now)));
        s.setString(2, scheduleId);
      });
      return Optional.of(new Fired(new Schedule.Fire(scheduleId, fireTime, now, late, sweepId, message), sweep));
    });
  }

  /** The schedule's sweep still running, in words, if there is one. */
  private static Optional<String> unfinished(java.sql.Connection c, String scheduleId) throws SQLException {
    return Database.first(c, "SELECT s.id, s.scheduled_for, count(*) FROM sweeps s JOIN runs r ON r.sweep_id = s.id"
        + " WHERE s.schedule_id = ? AND r.state IN ('QUEUED', 'RUNNING') GROUP BY s.id, s.scheduled_for"
        + " ORDER BY s.scheduled_for DESC LIMIT 1", s -> s.setString(1, scheduleId),
        rs -> "sweep " + rs.getString(1) + " of the fire for " + Database.instant(rs, 2) + " is still running ("
            + rs.getLong(3) + " run(s) unfinished)");
  }

  /** A fire and the sweep it created (null when no device matched). */
  public record Fired(Schedule.Fire fire, Sweep sweep) {}

  private static void bind(PreparedStatement s, Schedule schedule) throws SQLException {
    s.setString(1, schedule.id());
    s.setString(2, schedule.name());
    s.setString(3, schedule.cron());
    s.setString(4, schedule.timeZone());
    s.setString(5, schedule.suite());
    s.setString(6, Database.json(new TreeMap<>(schedule.options())));
    s.setString(7, schedule.target().kind().name());
    s.setString(8, schedule.target().value());
    s.setBoolean(9, schedule.paused());
    s.setObject(10, Database.timestamp(schedule.nextFireAt()));
    s.setObject(11, Database.timestamp(schedule.createdAt()));
    s.setObject(12, Database.timestamp(schedule.updatedAt()));
    s.setBoolean(13, schedule.allowOverlap());
  }

  private static Schedule read(ResultSet rs) throws SQLException {
    Map<String, String> options = Database.json(rs.getString(6), OPTIONS, "schedule options are not JSON");
    return new Schedule(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5), options,
        new Schedule.Target(Schedule.Target.Kind.valueOf(rs.getString(7)), rs.getString(8)), rs.getBoolean(9),
        Database.instant(rs, 10), Database.instant(rs, 11), Database.instant(rs, 12), rs.getBoolean(13));
  }
}
