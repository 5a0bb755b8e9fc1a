package io.busload.coordinator.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.analysis.verdict.Conditions;
import io.busload.coordinator.Fixtures;
import io.busload.protocol.CacheResidency;
import io.busload.protocol.Clocks;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.KernelResult;
import io.busload.protocol.ResultStatus;
import io.busload.protocol.Sampling;
import io.busload.protocol.StopReason;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The verdicts' conditions from a result's typed clocks, its method sentence only where it has none. */
class ClockConditionsTest {
  private static final DeviceInfo GPU = Fixtures.gpu("cc", 0);
  /** nvidia-smi's readings before and after as the agent words them, at 1410 MHz and shared. */
  static final String PROSE_1410 = "GPU before: sm 1410 MHz, mem 2619 MHz, 80 C, throttle reasons 0x20, other "
      + "processes: 77, python, 1000; after: sm 1410 MHz, mem 2619 MHz, 81 C, throttle reasons 0x20, no other "
      + "processes; WARNING: the GPU was throttling and shared with other processes during this measurement";

  static KernelResult withClocks(String method, Clocks clocks) {
    KernelResult r = Fixtures.result("s", "r", "a", GPU, 4, true, Instant.parse("2026-11-01T00:00:00Z"))
        .withMethod(method);
    return clocks == null ? r : r.withSampling(ResultStatus.MEASURED, new Sampling(10, 0, 0,
        StopReason.SPREAD_SETTLED, clocks, CacheResidency.of(8L << 20, GPU.l2Bytes(), false)));
  }

  static Clocks read(int smMin, int smMax, int mem, long reasons) {
    return new Clocks(Clocks.Reading.READ, "NVML 12.580.82", smMin, smMax, mem, mem, reasons, 0, false);
  }

  @Test
  void of_typedClocksAndProseDisagree_typedClocksWin() {
    Conditions c = ClockConditions.of(withClocks(PROSE_1410, read(1965, 1980, 2619, 0x1L)));

    assertThat(c.smMHz()).isEqualTo(1972.5);
    assertThat(c.memMHz()).isEqualTo(2619.0);
    assertThat(c.throttling()).as("idle (0x1) is no throttling, whatever the sentence says").isFalse();
    assertThat(c.shared()).as("no typed field says it: still the sentence's").isTrue();
  }

  @Test
  void of_typedThrottleReasonPowerCap_throttling() {
    assertThat(ClockConditions.of(withClocks("median", read(1755, 1980, 2619, 0x4L))).throttling()).isTrue();
  }

  @Test
  void of_clocksNotReadOrUnavailable_noFiguresThoughTheSentenceStatesSome() {
    for (Clocks unread : new Clocks[] {Clocks.notRead("no libnvidia-ml.so.1"), Clocks.unavailable("a CPU")}) {
      Conditions c = ClockConditions.of(withClocks(PROSE_1410, unread));
      assertThat(c.smMHz()).as(unread.reading().name()).isNull();
      assertThat(c.memMHz()).as(unread.reading().name()).isNull();
      assertThat(c.throttling()).as(unread.reading().name()).isFalse();
    }
  }

  @Test
  void of_resultWithoutTypedClocks_readsItsSentence() {
    KernelResult old = withClocks(PROSE_1410, null);

    assertThat(old.sampling()).isNull();
    assertThat(ClockConditions.of(old)).isEqualTo(new Conditions(1410.0, 2619.0, true, true));
    assertThat(ClockConditions.of(null, PROSE_1410)).isEqualTo(Conditions.fromMethod(PROSE_1410));
  }
}
