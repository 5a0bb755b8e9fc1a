package io.busload.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.busload.coordinator.PrometheusText.Sample;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The parser the metrics tests lean on is Prometheus's, and it refuses what Prometheus would refuse. */
class PrometheusTextTest {
  @Test
  void parse_gaugeWithLabelsAndNaN_samplesAsPrometheusReadsThem() throws Exception {
    List<Sample> samples = PrometheusText.parse("""
        # HELP g a gauge
        # TYPE g gauge
        g{device="h/cuda:0",family="stride"} 2.7E12
        g{device="h/cuda:1",family="stride"} NaN
        """);

    assertThat(samples).hasSize(2);
    assertThat(samples.getFirst()).isEqualTo(new Sample("g", "gauge", "g",
        Map.of("device", "h/cuda:0", "family", "stride"), 2.7e12));
    assertThat(samples.get(1).value()).isNaN();
  }

  @Test
  void parse_labelValueNotQuoted_refusedByTheParser() {
    assertThatThrownBy(() -> PrometheusText.parse("g{device=h0} 1\n"))
        .isInstanceOf(AssertionError.class).hasMessageContaining("refused /metrics");
  }
}
