package io.busload.coordinator.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.coordinator.Fixtures;
import io.busload.protocol.Health;
import io.busload.protocol.HealthCounters;
import io.busload.protocol.KernelResult;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A result's health is checked with the rest of it: an agent that floods XID numbers or a note of any length is
 * refused before anything is batched, so one result cannot blow up a row or a notice.
 */
class MessageCheckHealthTest {
  private final KernelResult result = Fixtures.result("s", "r", "a", Fixtures.gpu("h", 0), 1, true, Instant.now());

  @Test
  void result_withHealthWithinBounds_passes() {
    assertThat(MessageCheck.result(result.withHealth(new Health(HealthCounters.NONE, HealthCounters.NONE,
        List.of(79L), "NVML, driver 580.82.07")))).isNull();
  }

  @Test
  void result_millionXids_refusedNamingTheField() {
    KernelResult flood = result.withHealth(new Health(HealthCounters.NONE, HealthCounters.NONE,
        Collections.nCopies(1_000_000, 79L), "NVML"));

    assertThat(MessageCheck.result(flood)).isEqualTo("health.xids: at most 1000, got 1000000");
  }

  @Test
  void result_healthNoteOverLimit_refusedNamingTheField() {
    KernelResult noisy = result.withHealth(new Health(HealthCounters.NONE, HealthCounters.NONE, List.of(),
        "x".repeat(1001)));

    assertThat(MessageCheck.result(noisy)).startsWith("health.note:");
  }
}
