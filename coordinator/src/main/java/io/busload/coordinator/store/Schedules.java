package io.busload.coordinator.store;

import com.fasterxml.jackson.core.type.TypeReference;
import io.busload.protocol.JsonCodec;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Schedules and their fires in the store. A fire is claimed by inserting its (schedule, time) row, with the
 * schedule row locked: two coordinators racing for the same fire create one sweep between them.
 */
public final class Schedules {
  private static final TypeReference<Map<String, String>> OPTIONS = new TypeReference<>() {};
  private static final String COLUMNS = "id, name, cron, time_zone, suite, options_json, selector_kind, selector_value,"
      + " paused, next_fire_at, created_at, updated_at";

  private final Store store;

  public Schedules(Store store) {
    this.store = store;
  }

  public void insert(Schedule schedule) {
    store.inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement("INSERT INTO schedules (" + COLUMNS
          + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
        bind(s, schedule);
        s.executeUpdate();
      }
      return null;
    });
  }

  /** Replaces a schedule's definition; returns false when there is none with its id. */
  public boolean update(Schedule schedule) {
    return store.inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement("UPDATE schedules SET id = ?, name = ?, cron = ?, time_zone = ?,"
          + " suite = ?, options_json = ?, selector_kind = ?, selector_value = ?, paused = ?, next_fire_at = ?,"
          + " created_at = ?, updated_at = ? WHERE id = ?")) {
        bind(s, schedule);
        s.setString(13, schedule.id());
        return s.executeUpdate() == 1;
      }
    });
  }

  public boolean delete(String id) {
    return store.inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement("DELETE FROM schedules WHERE id = ?")) {
        s.setString(1, id);
        return s.executeUpdate() == 1;
      }
    });
  }

  public Optional<Schedule> find(String id) {
    return store.inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement("SELECT " + COLUMNS + " FROM schedules WHERE id = ?")) {
        s.setString(1, id);
        try (ResultSet rs = s.executeQuery()) {
          return rs.next() ? Optional.of(read(rs)) : Optional.<Schedule>empty();
        }
      }
    });
  }

  public List<Schedule> all() {
    return list("SELECT " + COLUMNS + " FROM schedules ORDER BY created_at, id", null);
  }

  /** Unpaused schedules whose next fire time has come. */
  public List<Schedule> due(Instant now) {
    return list("SELECT " + COLUMNS + " FROM schedules WHERE NOT paused AND next_fire_at <= ? ORDER BY next_fire_at",
        now);
  }

  private List<Schedule> list(String sql, Instant now) {
    return store.inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement(sql)) {
        if (now != null) {
          s.setObject(1, Store.timestamp(now));
        }
        try (ResultSet rs = s.executeQuery()) {
          List<Schedule> schedules = new ArrayList<>();
          while (rs.next()) {
            schedules.add(read(rs));
          }
          return schedules;
        }
      }
    });
  }

  /** The newest fires of a schedule first. */
  public List<Schedule.Fire> fires(String scheduleId, int limit) {
    return store.inTransaction(c -> {
      try (PreparedStatement s = c.prepareStatement("SELECT schedule_id, fire_time, fired_at, late, sweep_id, message"
          + " FROM schedule_fires WHERE schedule_id = ? ORDER BY fire_time DESC LIMIT ?")) {
        s.setString(1, scheduleId);
        s.setInt(2, limit);
        try (ResultSet rs = s.executeQuery()) {
          List<Schedule.Fire> fires = new ArrayList<>();
          while (rs.next()) {
            fires.add(new Schedule.Fire(rs.getString(1), Store.instant(rs, 2), Store.instant(rs, 3), rs.getBoolean(4),
                rs.getString(5), rs.getString(6)));
          }
          return fires;
        }
      }
    });
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
    return store.inTransaction(c -> {
      Schedule schedule;
      try (PreparedStatement s = c.prepareStatement("SELECT " + COLUMNS + " FROM schedules WHERE id = ? FOR UPDATE")) {
        s.setString(1, scheduleId);
        try (ResultSet rs = s.executeQuery()) {
          if (!rs.next()) {
            return Optional.<Fired>empty();
          }
          schedule = read(rs);
        }
      }
      if (schedule.paused() || schedule.nextFireAt() == null || schedule.nextFireAt().isAfter(now)) {
        return Optional.<Fired>empty();
      }
      Instant fireTime = schedule.nextFireAt();
      boolean late = now.isAfter(fireTime.plus(lateAfter));
      try (PreparedStatement s = c.prepareStatement("INSERT INTO schedule_fires (schedule_id, fire_time, fired_at, late)"
          + " VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING")) {
        s.setString(1, scheduleId);
        s.setObject(2, Store.timestamp(fireTime));
        s.setObject(3, Store.timestamp(now));
        s.setBoolean(4, late);
        if (s.executeUpdate() == 0) {
          return Optional.<Fired>empty();
        }
      }
      List<RunTarget> targets = plan.targets(schedule);
      Sweep sweep = null;
      String message = null;
      if (targets.isEmpty()) {
        message = "no device matches " + schedule.target().kind().name().toLowerCase(java.util.Locale.ROOT)
            + (schedule.target().value() == null ? "" : " '" + schedule.target().value() + "'");
      } else {
        sweep = Store.insertSweep(c, schedule.suite(), schedule.options(), targets, now, scheduleId, fireTime, late);
      }
      try (PreparedStatement s = c.prepareStatement(
          "UPDATE schedule_fires SET sweep_id = ?, message = ? WHERE schedule_id = ? AND fire_time = ?")) {
        s.setString(1, sweep == null ? null : sweep.id());
        s.setString(2, message);
        s.setString(3, scheduleId);
        s.setObject(4, Store.timestamp(fireTime));
        s.executeUpdate();
      }
      try (PreparedStatement s = c.prepareStatement("UPDATE schedules SET next_fire_at = ? WHERE id = ?")) {
        s.setObject(1, Store.timestamp(plan.nextAfter(schedule, now)));
        s.setString(2, scheduleId);
        s.executeUpdate();
      }
      return Optional.of(new Fired(new Schedule.Fire(scheduleId, fireTime, now, late,
          sweep == null ? null : sweep.id(), message), sweep));
    });
  }

  /** A fire and the sweep it created (null when no device matched). */
  public record Fired(Schedule.Fire fire, Sweep sweep) {}

  private static void bind(PreparedStatement s, Schedule schedule) throws SQLException {
    s.setString(1, schedule.id());
    s.setString(2, schedule.name());
    s.setString(3, schedule.cron());
    s.setString(4, schedule.timeZone());
    s.setString(5, schedule.suite());
    s.setString(6, new String(JsonCodec.toJson(new TreeMap<>(schedule.options())), StandardCharsets.UTF_8));
    s.setString(7, schedule.target().kind().name());
    s.setString(8, schedule.target().value());
    s.setBoolean(9, schedule.paused());
    s.setObject(10, Store.timestamp(schedule.nextFireAt()));
    s.setObject(11, Store.timestamp(schedule.createdAt()));
    s.setObject(12, Store.timestamp(schedule.updatedAt()));
  }

  private static Schedule read(ResultSet rs) throws SQLException {
    Map<String, String> options;
    try {
      options = JsonCodec.MAPPER.readValue(rs.getString(6), OPTIONS);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new SQLException("schedule options are not JSON: " + e.getOriginalMessage(), e);
    }
    return new Schedule(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5), options,
        new Schedule.Target(Schedule.Target.Kind.valueOf(rs.getString(7)), rs.getString(8)), rs.getBoolean(9),
        Store.instant(rs, 10), Store.instant(rs, 11), Store.instant(rs, 12));
  }
}
