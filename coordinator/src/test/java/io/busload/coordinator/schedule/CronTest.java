package io.busload.coordinator.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class CronTest {

  @Test
  void next_dailyAtThreeInBerlinAcrossDstEnd_givesFiveLocalThreeOClocks() {
    Cron cron = Cron.parse("0 3 * * *", "Europe/Berlin");

    // 2026-10-25 is the night Berlin leaves summer time (UTC+2 -> UTC+1).
    assertThat(cron.next(Instant.parse("2026-10-23T12:00:00Z"), 5)).containsExactly(
        Instant.parse("2026-10-24T01:00:00Z"),
        Instant.parse("2026-10-25T02:00:00Z"),
        Instant.parse("2026-10-26T02:00:00Z"),
        Instant.parse("2026-10-27T02:00:00Z"),
        Instant.parse("2026-10-28T02:00:00Z"));
  }

  @Test
  void nextAfter_everyFifteenMinutes_isStrictlyAfter() {
    Cron cron = Cron.parse("*/15 * * * *", "UTC");

    assertThat(cron.nextAfter(Instant.parse("2026-11-01T10:15:00Z"))).hasValue(Instant.parse("2026-11-01T10:30:00Z"));
  }

  @Test
  void parse_sixFields_isRefusedNamingTheExpression() {
    assertThatThrownBy(() -> Cron.parse("0 0 3 * * *", "UTC"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0 0 3 * * *");
  }

  @Test
  void parse_unknownZone_isRefusedAsZone() {
    assertThatThrownBy(() -> Cron.parse("0 3 * * *", "Mars/Olympus")).isInstanceOf(Cron.InvalidZone.class);
  }
}
