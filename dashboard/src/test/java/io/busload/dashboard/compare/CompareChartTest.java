package io.busload.dashboard.compare;

import static io.busload.dashboard.Results.GPU;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.dashboard.Results;
import io.busload.protocol.KernelResult;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Compare chart's fractions are of the measured ceiling, which no bar exceeds. */
class CompareChartTest {
  private static KernelResult r(String kernel, double bandwidth) {
    return Results.result("s", GPU, kernel, Map.of(), true, bandwidth, Instant.EPOCH);
  }

  @Test
  void option_readHeavyKernelAboveMemcpy_setsTheCeilingAndNoBarExceedsIt() {
    // As on an H100: gather-sorted 2.2% above memcpy-d2d in the same run.
    CompareChart.Subject subject = new CompareChart.Subject("H100", List.of(r("memcpy-d2d", 3.0e12),
        r("gather-sorted", 3.066e12), r("gather-random", 0.4e12)));

    assertThat(subject.ceiling()).isEqualTo(3.066e12);
    JsonNode option = CompareChart.option(List.of(subject), CompareChart.Scale.FRACTION_OF_CEILING, List.of());

    assertThat(CompareChart.Scale.FRACTION_OF_CEILING.unit).isEqualTo("% of measured ceiling");
    List<Double> bars = option.get("series").findValues("data").stream().flatMap(d -> java.util.stream.StreamSupport
        .stream(d.spliterator(), false)).filter(JsonNode::isNumber).map(JsonNode::asDouble).toList();
    assertThat(bars).isNotEmpty().allMatch(v -> v <= 100.0).contains(100.0);
  }

  @Test
  void ceiling_noMemcpy_none() {
    assertThat(new CompareChart.Subject("H100", List.of(r("gather-sorted", 3e12))).ceiling()).isNull();
  }

  @Test
  void option_perWatt_bandwidthOverAverageWattsAndNoBarWhereEnergyWasNotRead() {
    // gather-sorted: 3.0 TB/s over 330 W = 9.091 GB/s per W; gather-random measured without energy: no bar, not 0.
    KernelResult sorted = r("gather-sorted", 3.0e12).withEnergy(new io.busload.protocol.Energy(330, 330, 119.0, 1.0,
        1000, 10));
    CompareChart.Subject subject = new CompareChart.Subject("H100", List.of(sorted, r("gather-random", 0.4e12)));

    JsonNode option = CompareChart.option(List.of(subject), CompareChart.Scale.PER_WATT, List.of());

    List<Double> bars = option.get("series").findValues("data").stream().flatMap(d -> java.util.stream.StreamSupport
        .stream(d.spliterator(), false)).filter(JsonNode::isNumber).map(JsonNode::asDouble).toList();
    assertThat(bars).contains(9.091).doesNotContain(0.0);
    assertThat(option.get("series").findValues("data").stream().flatMap(d -> java.util.stream.StreamSupport
        .stream(d.spliterator(), false)).filter(JsonNode::isNull).count()).isPositive();
    assertThat(CompareChart.Scale.PER_WATT.unit).isEqualTo("GB/s per watt");
  }
}
