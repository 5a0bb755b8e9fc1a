package io.busload.coordinator.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.coordinator.Fixtures;
import io.busload.protocol.Counters;
import io.busload.protocol.KernelResult;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A result's counters are checked with the rest of it: a bad figure refuses the result before it is batched. */
class MessageCheckCountersTest {
  private final KernelResult result = Fixtures.result("s", "r", "a", Fixtures.gpu("h", 0), 1, true, Instant.now());

  @Test
  void result_withoutCountersOrWithGoodOnes_passes() {
    assertThat(MessageCheck.result(result)).isNull();
    assertThat(MessageCheck.result(result.withCounters(new Counters(4.0, 4.0, null, null, 1e6, 1e6, null, null,
        false, List.of(), List.of("busload_k"), "ncu")))).isNull();
  }

  @Test
  void result_countersWithInfiniteFigure_refusedNamingTheField() {
    KernelResult bad = result.withCounters(new Counters(4.0, 4.0, null, null, Double.POSITIVE_INFINITY, 1e6, null,
        null, false, List.of(), List.of(), "ncu"));

    assertThat(MessageCheck.result(bad)).isEqualTo("counters.dramBytesRead: must be a finite number, not negative");
  }
}
