package io.busload.dashboard.schedules;

import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A cron expression checked as it is typed, in the coordinator's dialect (five-field Unix cron, cron-utils), with
 * the next fire times in the schedule's time zone. The coordinator checks again when the schedule is saved.
 */
public final class CronCheck {
  private static final CronParser PARSER = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));

  /** What the check found. */
  public sealed interface Outcome {
    record Valid(List<ZonedDateTime> nextFires) implements Outcome {}

    record Invalid(String message) implements Outcome {}
  }

  private CronCheck() {}

  public static Outcome check(String cron, String timeZone, ZonedDateTime now, int fires) {
    if (cron == null || cron.isBlank()) {
      return new Outcome.Invalid("enter five fields: minute hour day-of-month month day-of-week");
    }
    ZoneId zone;
    try {
      zone = ZoneId.of(timeZone == null || timeZone.isBlank() ? "UTC" : timeZone.trim());
    } catch (DateTimeException e) {
      return new Outcome.Invalid("unknown time zone '" + timeZone + "'");
    }
    String[] fields = cron.trim().split("\\s+");
    if (fields.length != 5) {
      return new Outcome.Invalid("cron needs 5 fields (minute hour day-of-month month day-of-week), got "
          + fields.length);
    }
    try {
      ExecutionTime execution = ExecutionTime.forCron(PARSER.parse(cron.trim()));
      List<ZonedDateTime> next = new ArrayList<>();
      ZonedDateTime at = now.withZoneSameInstant(zone);
      for (int i = 0; i < fires; i++) {
        Optional<ZonedDateTime> fire = execution.nextExecution(at);
        if (fire.isEmpty()) {
          break;
        }
        next.add(fire.get());
        at = fire.get();
      }
      if (next.isEmpty()) {
        return new Outcome.Invalid("this expression never fires");
      }
      return new Outcome.Valid(List.copyOf(next));
    } catch (IllegalArgumentException e) {
      return new Outcome.Invalid(e.getMessage());
    }
  }
}
