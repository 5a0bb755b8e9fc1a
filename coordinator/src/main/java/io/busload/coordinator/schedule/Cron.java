package io.busload.coordinator.schedule;

import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A five-field Unix cron expression ({@code minute hour day-of-month month day-of-week}) read in a time zone,
 * parsed by cron-utils. Daylight-saving gaps and overlaps are cron-utils' to resolve: that is why it is not
 * hand-written.
 */
public final class Cron {
  private static final CronParser PARSER = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));

  private final String expression;
  private final ZoneId zone;
  private final ExecutionTime execution;

  private Cron(String expression, ZoneId zone, ExecutionTime execution) {
    this.expression = expression;
    this.zone = zone;
    this.execution = execution;
  }

  /** Throws {@link IllegalArgumentException} naming what is wrong with the expression or the zone. */
  public static Cron parse(String expression, String timeZone) {
    ZoneId zone;
    try {
      zone = ZoneId.of(timeZone);
    } catch (DateTimeException e) {
      throw new InvalidZone("unknown time zone '" + timeZone + "'; use an IANA name such as Europe/Berlin or UTC");
    }
    try {
      var cron = PARSER.parse(expression.trim()).validate();
      return new Cron(expression.trim(), zone, ExecutionTime.forCron(cron));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("invalid cron expression '" + expression + "': " + e.getMessage()
          + " (five fields: minute hour day-of-month month day-of-week)");
    }
  }

  /** A zone that Java does not know, told apart so that the API can name the right field. */
  public static final class InvalidZone extends IllegalArgumentException {
    InvalidZone(String message) {
      super(message);
    }
  }

  /** The first fire time strictly after {@code after}; empty for an expression that never fires again. */
  public Optional<Instant> nextAfter(Instant after) {
    return execution.nextExecution(ZonedDateTime.ofInstant(after, zone)).map(ZonedDateTime::toInstant);
  }

  /** The next {@code count} fire times after {@code after}. */
  public List<Instant> next(Instant after, int count) {
    List<Instant> times = new ArrayList<>();
    Instant t = after;
    for (int i = 0; i < count; i++) {
      Optional<Instant> next = nextAfter(t);
      if (next.isEmpty()) {
        break;
      }
      times.add(next.get());
      t = next.get();
    }
    return times;
  }

  public String expression() {
    return expression;
  }

  public ZoneId zone() {
    return zone;
  }
}
