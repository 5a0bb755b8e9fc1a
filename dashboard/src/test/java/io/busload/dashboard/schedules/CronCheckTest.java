package io.busload.dashboard.schedules;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.ZonedDateTime;
import org.junit.jupiter.api.Test;

class CronCheckTest {
  private static final ZonedDateTime NOW = ZonedDateTime.parse("2026-03-27T12:00:00Z");

  @Test
  void check_weekdaysAtHalfPastTwoInBerlin_fiveFiresAcrossTheClockChange() {
    CronCheck.Outcome outcome = CronCheck.check("30 2 * * 1-5", "Europe/Berlin", NOW, 5);

    assertThat(outcome).isInstanceOf(CronCheck.Outcome.Valid.class);
    var fires = ((CronCheck.Outcome.Valid) outcome).nextFires();
    assertThat(fires).hasSize(5);
    assertThat(fires.getFirst().toString()).startsWith("2026-03-30T");
    assertThat(fires).allSatisfy(f -> assertThat(f.getZone().getId()).isEqualTo("Europe/Berlin"));
  }

  @Test
  void check_minuteOutOfRange_invalidWithAMessage() {
    assertThat(CronCheck.check("61 3 * * *", "UTC", NOW, 5)).isInstanceOf(CronCheck.Outcome.Invalid.class);
  }

  @Test
  void check_sixFields_invalidNamingTheFieldCount() {
    CronCheck.Outcome outcome = CronCheck.check("0 0 3 * * *", "UTC", NOW, 5);

    assertThat(((CronCheck.Outcome.Invalid) outcome).message()).contains("5 fields", "got 6");
  }

  @Test
  void check_unknownZone_invalid() {
    assertThat(((CronCheck.Outcome.Invalid) CronCheck.check("0 3 * * *", "Mars/Base", NOW, 5)).message())
        .contains("time zone");
  }
}
