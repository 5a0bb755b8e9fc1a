package io.busload.coordinator.store;

import com.fasterxml.jackson.core.type.TypeReference;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Notification targets, the events told to them and the log of every delivery. An event is claimed by its key in
 * one transaction with its deliveries, so two coordinators that both see a change queue its messages once. Pending
 * deliveries are leased (their next attempt moved ahead) as they are taken, so two senders never send one at once.
 */
public final class NotificationStore {
  private static final TypeReference<Map<String, String>> STRINGS = new TypeReference<>() {};
  private static final TypeReference<Filter> FILTER = new TypeReference<>() {};

  private final Database db;

  public NotificationStore(Database db) {
    this.db = db;
  }

  /**
   * What a target wants to hear; an empty list accepts every value.
   *
   * @param events event kinds
   * @param minSeverity the least severity told
   * @param labels host labels, one of which the event's device must carry
   * @param models words, one of which the event's device model must contain (case ignored)
   */
  public record Filter(List<String> events, String minSeverity, List<String> labels, List<String> models) {
    public Filter {
      events = List.copyOf(events);
      labels = List.copyOf(labels);
      models = List.copyOf(models);
    }
  }

  /** A place notices go; {@code secrets} are never shown back, only named. */
  public record Target(UUID id, String name, String kind, Map<String, String> settings, Map<String, String> secrets,
      Filter filter, long quietSeconds, String createdBy, Instant createdAt) {
    public Target {
      settings = Map.copyOf(settings);
      secrets = Map.copyOf(secrets);
    }

    /** Names the secrets, never their values: a target that reaches a log line must not carry its tokens there. */
    @Override
    public String toString() {
      return "Target[" + id + ", '" + name + "', " + kind + ", settings " + settings + ", secrets "
          + secrets.keySet() + "]";
    }
  }

  /** One thing worth telling, as every target is told it; {@code key} is what makes it one. */
  public record Event(String key, String quietKey, String kind, String severity, String title, String message,
      String link, String detailsJson, Instant occurredAt) {}

  /** One event's delivery to one target, as the log shows it. */
  public record Delivery(UUID id, UUID targetId, String targetName, String eventKey, String kind, String severity,
      String title, String status, int attempts, Instant nextAttemptAt, Integer lastCode, String lastReply,
      String lastError, Instant createdAt, Instant updatedAt) {}

  /** A pending delivery taken for sending, with all it needs. */
  public record Due(UUID deliveryId, int attempts, Target target, Event event) {}

  /** The settings every coordinator shares. */
  public record Settings(String dashboardUrl, long agentOfflineSeconds, long firstRetryMillis, int maxAttempts) {}

  public void insertTarget(Target t) {
    db.inTransaction(c -> Database.update(c, "INSERT INTO notification_targets (id, name, kind, settings_json,"
        + " secrets_json, filter_json, quiet_seconds, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        s -> Database.values(s, t.id(), t.name(), t.kind(), Database.json(t.settings()), Database.json(t.secrets()),
            Database.json(t.filter()), t.quietSeconds(), t.createdBy(), Database.timestamp(t.createdAt()))));
  }

  /** Whether a target of that name exists (names are how people tell targets apart). */
  public boolean nameTaken(String name) {
    return db.first("SELECT 1 FROM notification_targets WHERE name = ?", s -> s.setString(1, name), rs -> true)
        .isPresent();
  }

  public List<Target> targets() {
    return db.list(TARGET_COLUMNS + " ORDER BY name", Database.Binder.NONE, NotificationStore::target);
  }

  public Optional<Target> target(UUID id) {
    return db.first(TARGET_COLUMNS + " WHERE id = ?", s -> s.setObject(1, id), NotificationStore::target);
  }

  /** Deletes a target and its deliveries; false when there was none. */
  public boolean deleteTarget(UUID id) {
    return db.inTransaction(c -> Database.update(c, "DELETE FROM notification_targets WHERE id = ?",
        s -> s.setObject(1, id))) > 0;
  }

  /**
   * Claims {@code event} and queues one delivery per target, in one transaction; an event claimed before (by this
   * coordinator or another) queues nothing. A target that was told of the same quiet key within its quiet period
   * gets a SUPPRESSED delivery, kept in the log, never sent.
   *
   * @return the deliveries queued to send (0 when the event was claimed before)
   */
  public int claim(Event e, List<Target> targets, Instant now) {
    return db.inTransaction(c -> {
      int claimed = Database.update(c, "INSERT INTO notification_events (event_key, quiet_key, kind, severity, title,"
          + " message, link, details_json, occurred_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
          + " ON CONFLICT (event_key) DO NOTHING", s -> {
            Database.strings(s, e.key(), e.quietKey(), e.kind(), e.severity(), e.title(), e.message(), e.link(),
                e.detailsJson());
            s.setObject(9, Database.timestamp(e.occurredAt()));
            s.setObject(10, Database.timestamp(now));
          });
      if (claimed == 0) {
        return 0;
      }
      int queued = 0;
      for (Target t : targets) {
        boolean quiet = t.quietSeconds() > 0 && Database.first(c, "SELECT 1 FROM notification_deliveries"
            + " WHERE target_id = ? AND quiet_key = ? AND status <> 'SUPPRESSED' AND created_at > ?", s -> {
              s.setObject(1, t.id());
              s.setString(2, e.quietKey());
              s.setObject(3, Database.timestamp(now.minusSeconds(t.quietSeconds())));
            }, rs -> true).isPresent();
        Database.update(c, "INSERT INTO notification_deliveries (id, target_id, event_key, quiet_key, status,"
            + " next_attempt_at, last_error, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", s -> {
              s.setObject(1, UUID.randomUUID());
              s.setObject(2, t.id());
              s.setString(3, e.key());
              s.setString(4, e.quietKey());
              s.setString(5, quiet ? "SUPPRESSED" : "PENDING");
              s.setObject(6, Database.timestamp(now));
              s.setString(7, quiet ? "within the target's quiet period for " + e.quietKey() : null);
              s.setObject(8, Database.timestamp(now));
              s.setObject(9, Database.timestamp(now));
            });
        queued += quiet ? 0 : 1;
      }
      return queued;
    });
  }

  /**
   * Takes up to {@code limit} pending deliveries due by {@code now}, moving their next attempt to {@code leaseUntil}
   * so that no other sender takes them meanwhile (SKIP LOCKED: two coordinators never wait on each other).
   */
  public List<Due> takeDue(Instant now, Instant leaseUntil, int limit) {
    return db.inTransaction(c -> {
      List<Due> due = Database.list(c, "SELECT d.id, d.attempts, " + TARGET_FIELDS + ", e.event_key, e.quiet_key,"
          + " e.kind, e.severity, e.title, e.message, e.link, e.details_json, e.occurred_at"
          + " FROM notification_deliveries d JOIN notification_targets t ON t.id = d.target_id"
          + " JOIN notification_events e ON e.event_key = d.event_key"
          + " WHERE d.status = 'PENDING' AND d.next_attempt_at <= ? ORDER BY d.next_attempt_at LIMIT ?"
          + " FOR UPDATE OF d SKIP LOCKED", s -> {
            s.setObject(1, Database.timestamp(now));
            s.setInt(2, limit);
          }, rs -> {
            Target target = target(rs, 3);
            int e = 3 + TARGET_FIELD_COUNT;
            Event event = new Event(rs.getString(e), rs.getString(e + 1), rs.getString(e + 2), rs.getString(e + 3),
                rs.getString(e + 4), rs.getString(e + 5), rs.getString(e + 6), rs.getString(e + 7),
                Database.instant(rs, e + 8));
            return new Due(rs.getObject(1, UUID.class), rs.getInt(2), target, event);
          });
      for (Due d : due) {
        Database.update(c, "UPDATE notification_deliveries SET next_attempt_at = ? WHERE id = ?", s -> {
          s.setObject(1, Database.timestamp(leaseUntil));
          s.setObject(2, d.deliveryId());
        });
      }
      return due;
    });
  }

  /**
   * Records one attempt: SENT, FAILED (no attempt left) or PENDING again, due at {@code next}.
   *
   * @param code the HTTP status or SMTP reply code, null when none came
   */
  public void recordAttempt(UUID deliveryId, int attempts, String status, Instant next, Integer code, String reply,
      String error, Instant now) {
    db.inTransaction(c -> Database.update(c, "UPDATE notification_deliveries SET attempts = ?, status = ?,"
        + " next_attempt_at = ?, last_code = ?, last_reply = ?, last_error = ?, updated_at = ? WHERE id = ?", s -> {
          s.setInt(1, attempts);
          s.setString(2, status);
          s.setObject(3, Database.timestamp(next));
          if (code == null) {
            s.setNull(4, Types.INTEGER);
          } else {
            s.setInt(4, code);
          }
          s.setString(5, reply);
          s.setString(6, error);
          s.setObject(7, Database.timestamp(now));
          s.setObject(8, deliveryId);
        }));
  }

  /** The newest deliveries first, of one target or (null) of all. */
  public List<Delivery> deliveries(UUID targetId, int limit) {
    return db.list("SELECT d.id, d.target_id, t.name, d.event_key, e.kind, e.severity, e.title, d.status,"
        + " d.attempts, d.next_attempt_at, d.last_code, d.last_reply, d.last_error, d.created_at, d.updated_at"
        + " FROM notification_deliveries d JOIN notification_targets t ON t.id = d.target_id"
        + " JOIN notification_events e ON e.event_key = d.event_key WHERE (?::uuid IS NULL OR d.target_id = ?::uuid)"
        + " ORDER BY d.updated_at DESC, d.id LIMIT ?", s -> {
          s.setObject(1, targetId);
          s.setObject(2, targetId);
          s.setInt(3, limit);
        }, rs -> {
          int code = rs.getInt(11);
          Integer lastCode = rs.wasNull() ? null : code;
          return new Delivery(rs.getObject(1, UUID.class), rs.getObject(2, UUID.class), rs.getString(3),
              rs.getString(4), rs.getString(5), rs.getString(6), rs.getString(7), rs.getString(8), rs.getInt(9),
              Database.instant(rs, 10), lastCode, rs.getString(12), rs.getString(13), Database.instant(rs, 14),
              Database.instant(rs, 15));
        });
  }

  /**
   * The events of {@code kind} claimed since {@code since} whose key starts with {@code openPrefix} and that have no
   * answering event (the same key with {@code closePrefix} in its place): an agent reported offline and not yet back,
   * a device flagged against its cohort and not yet within it again.
   */
  public List<Event> unanswered(String kind, String openPrefix, String closePrefix, Instant since) {
    return db.list("SELECT e.event_key, e.quiet_key, e.kind, e.severity, e.title, e.message, e.link, e.details_json,"
        + " e.occurred_at FROM notification_events e WHERE e.kind = ? AND e.created_at > ?"
        + " AND left(e.event_key, ?) = ? AND NOT EXISTS (SELECT 1 FROM notification_events b"
        + " WHERE b.event_key = ? || substr(e.event_key, ?))", s -> {
          s.setString(1, kind);
          s.setObject(2, Database.timestamp(since));
          s.setInt(3, openPrefix.length());
          s.setString(4, openPrefix);
          s.setString(5, closePrefix);
          s.setInt(6, openPrefix.length() + 1);
        }, rs -> new Event(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
            rs.getString(6), rs.getString(7), rs.getString(8), Database.instant(rs, 9)));
  }

  public Settings settings() {
    return db.first("SELECT dashboard_url, agent_offline_seconds, first_retry_millis, max_attempts"
        + " FROM notification_settings", Database.Binder.NONE, rs -> new Settings(rs.getString(1), rs.getLong(2),
        rs.getLong(3), rs.getInt(4))).orElseThrow(() -> new StoreException(new SQLException(
        "notification_settings has no row (the V15 migration writes one)")));
  }

  public void saveSettings(Settings settings) {
    db.inTransaction(c -> Database.update(c, "UPDATE notification_settings SET dashboard_url = ?,"
        + " agent_offline_seconds = ?, first_retry_millis = ?, max_attempts = ?", s -> Database.values(s,
            settings.dashboardUrl(), settings.agentOfflineSeconds(), settings.firstRetryMillis(),
            settings.maxAttempts())));
  }

  private static final String TARGET_FIELDS = "t.id, t.name, t.kind, t.settings_json, t.secrets_json, t.filter_json,"
      + " t.quiet_seconds, t.created_by, t.created_at";
  private static final int TARGET_FIELD_COUNT = 9;
  private static final String TARGET_COLUMNS = "SELECT " + TARGET_FIELDS + " FROM notification_targets t";

  private static Target target(ResultSet rs) throws SQLException {
    return target(rs, 1);
  }

  private static Target target(ResultSet rs, int from) throws SQLException {
    return new Target(rs.getObject(from, UUID.class), rs.getString(from + 1), rs.getString(from + 2),
        Database.json(rs.getString(from + 3), STRINGS, "notification target settings are not JSON"),
        Database.json(rs.getString(from + 4), STRINGS, "notification target secrets are not JSON"),
        Database.json(rs.getString(from + 5), FILTER, "notification target filter is not JSON"),
        rs.getLong(from + 6), rs.getString(from + 7), Database.instant(rs, from + 8));
  }
}
