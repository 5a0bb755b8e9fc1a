package io.busload.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.agent.measure.StoppingRule;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class StoppingRuleTest {
  private final StoppingRule rule = StoppingRule.standard(2.0);

  @Test
  void fewerThanMinimum_steadySamples_goesOn() {
    assertThat(rule.stopReason(Collections.nCopies(9, 1.0), 0.1)).isNull();
  }

  @Test
  void tenSteadySamples_spreadUnderHalfPercent_stops() {
    List<Double> samples = new ArrayList<>(List.of(2.0, 1.5)); // noisy start, outside the window
    for (int i = 0; i < 10; i++) {
      samples.add(1.0 + i * 0.0004);
    }
    assertThat(rule.stopReason(samples, 0.1)).isEqualTo("spread of the last 10 under 0.5%");
  }

  @Test
  void noisySamples_beforeCap_goesOnAndAtCapStops() {
    List<Double> noisy = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      noisy.add(i % 2 == 0 ? 1.0 : 1.02);
    }
    assertThat(rule.stopReason(noisy, 1.9)).isNull();
    assertThat(rule.stopReason(noisy, 2.0)).isEqualTo("time cap 2 s");
  }

  @Test
  void spreadAndMedian_knownSamples_exact() {
    assertThat(StoppingRule.median(List.of(3.0, 1.0, 2.0, 4.0))).isEqualTo(2.5);
    assertThat(StoppingRule.spread(List.of(1.0, 2.0, 3.0))).isEqualTo(1.0);
  }
}
