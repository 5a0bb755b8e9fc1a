package io.busload.coordinator.fleet;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * How far a result's measuredAt may lie from the coordinator's clock for the result to be taken, from agents and
 * pushes alike. A result is stored in the month partition of its measuredAt, so an agent whose clock is a year
 * off would otherwise file its results where no view looks and make a partition (with its indexes) for every month
 * it names. Ahead: a clock wrong by more than {@code ahead}. Behind: results may wait in an agent's outbox while
 * the coordinator is away, and exported files are pushed later, so the limit there is an age, {@code behind}. A clock
 * that is behind is caught by the agent's heartbeats instead ({@link #clockProblem}): they are sent every two seconds,
 * so their time says what the agent's clock reads now, whatever its outbox holds.
 *
 * @param ahead how far past the coordinator's clock a measuredAt may be ({@code BUSLOAD_MAX_CLOCK_SKEW})
 * @param behind how old a result may be ({@code BUSLOAD_MAX_RESULT_AGE})
 */
public record MeasuredAtWindow(Duration ahead, Duration behind) {
  public static final Duration DEFAULT_AHEAD = Duration.ofHours(24);
  public static final Duration DEFAULT_BEHIND = Duration.ofDays(400);
  public static final MeasuredAtWindow DEFAULT = new MeasuredAtWindow(DEFAULT_AHEAD, DEFAULT_BEHIND);

  public MeasuredAtWindow {
    Objects.requireNonNull(ahead, "ahead");
    Objects.requireNonNull(behind, "behind");
    if (ahead.isNegative() || behind.isNegative()) {
      throw new IllegalArgumentException("measuredAt window: limits must not be negative");
    }
  }

  /**
   * Null when {@code measuredAt} is inside the window around {@code now}, else the refusal, naming the field, how
   * far off it is and the limit: {@code "measuredAt: 2027-11-27T10:00:00Z is 365 d ahead of the coordinator's
   * clock; the limit is 24 h"}.
   */
  public String problem(Instant measuredAt, Instant now) {
    Duration off = Duration.between(now, measuredAt);
    if (off.compareTo(ahead) > 0) {
      return "measuredAt: " + measuredAt + " is " + words(off) + " ahead of the coordinator's clock; the limit is "
          + words(ahead) + " (BUSLOAD_MAX_CLOCK_SKEW): is the sender's clock set?";
    }
    if (off.negated().compareTo(behind) > 0) {
      return "measuredAt: " + measuredAt + " is " + words(off.negated()) + " behind the coordinator's clock; the"
          + " limit is " + words(behind) + " (BUSLOAD_MAX_RESULT_AGE)";
    }
    return null;
  }

  /**
   * Null when an agent whose last heartbeat said its clock was {@code offset} from ours (negative: behind) may have
   * its results taken, else the refusal naming the agent, how far off its clock is and the limit, {@code ahead},
   * which bounds a clock's error either way.
   */
  public String clockProblem(String agentId, Duration offset) {
    if (offset.abs().compareTo(ahead) <= 0) {
      return null;
    }
    return "agent " + agentId + ": its clock is " + words(offset.abs()) + (offset.isNegative() ? " behind" : " ahead of")
        + " the coordinator's (its last heartbeat); the limit is "
        + words(ahead) + " (BUSLOAD_MAX_CLOCK_SKEW): its results wait in its outbox until its clock is set";
  }

  /** The earliest and the latest measuredAt taken at {@code now}. */
  public Instant earliest(Instant now) {
    return now.minus(behind);
  }

  public Instant latest(Instant now) {
    return now.plus(ahead);
  }

  /** A duration as people read it: whole days from two days up, else hours, minutes or seconds. */
  static String words(Duration d) {
    if (d.toDays() >= 2) {
      return d.toDays() + " d";
    }
    if (d.toHours() >= 2) {
      return d.toHours() + " h";
    }
    if (d.toMinutes() >= 2) {
      return d.toMinutes() + " min";
    }
    return d.toSeconds() + " s";
  }

  /**
   * A setting's value as a duration: a whole number with a unit, {@code s}, {@code min}, {@code h} or {@code d}
   * ({@code 24h}, {@code 400d}), or ISO-8601 ({@code PT24H}); {@link IllegalArgumentException} naming {@code name}.
   */
  public static Duration parse(String name, String value) {
    String v = value.strip().toLowerCase(java.util.Locale.ROOT);
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d{1,9})\\s*(s|min|m|h|d)").matcher(v);
    try {
      if (m.matches()) {
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
          case "s" -> Duration.ofSeconds(n);
          case "min", "m" -> Duration.ofMinutes(n);
          case "h" -> Duration.ofHours(n);
          default -> Duration.ofDays(n);
        };
      }
      Duration d = Duration.parse(value.strip());
      if (d.isNegative()) {
        throw new IllegalArgumentException(name + ": must not be negative: '" + value.strip() + "'");
      }
      return d;
    } catch (java.time.format.DateTimeParseException e) {
      throw new IllegalArgumentException(name + ": a duration such as 24h, 90min or 400d, not '" + value.strip() + "'");
    }
  }
}
