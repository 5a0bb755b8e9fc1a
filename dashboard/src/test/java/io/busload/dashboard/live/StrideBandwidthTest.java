package io.busload.dashboard.live;

import static io.busload.dashboard.Results.CPU;
import static io.busload.dashboard.Results.GPU;
import static io.busload.dashboard.Results.stride;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.dashboard.Results;
import io.busload.protocol.KernelResult;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StrideBandwidthTest {
  private static final Instant T0 = Instant.parse("2026-11-22T00:00:00Z");

  @Test
  void gigabytesPerSecond_bytesPerSecond_dividesByOneBillionToTheMegabyte() {
    assertThat(StrideBandwidth.gigabytesPerSecond(3.2e12)).isEqualTo(3200.0);
    assertThat(StrideBandwidth.gigabytesPerSecond(1_234_567_890.0)).isEqualTo(1.235);
  }

  @Test
  void load_resultsOfTwoDevices_oneSeriesPerDeviceOrderedByStride() {
    StrideBandwidth chart = new StrideBandwidth();

    chart.load("s1", List.of(
        stride("s1", CPU, 4, 2e9, T0.plusSeconds(2)),
        stride("s1", CPU, 1, 8e9, T0),
        stride("s1", GPU, 1, 3.0e12, T0.plusSeconds(1))));

    JsonNode series = chart.option().get("series");
    assertThat(series).filteredOn(s -> StrideBandwidth.isMainSeries(s.get("id").asText())).hasSize(2);
    assertThat(series.get(0).get("name").asText()).contains("CPU: Test", "host-a/cpu");
    assertThat(series.get(0).get("data").toString()).isEqualTo("[[1.0,8.0],[4.0,2.0]]");
    assertThat(series.get(1).get("data").toString()).isEqualTo("[[1.0,3000.0]]");
  }

  @Test
  void add_moreDevicesThanLines_oneLinePerModelWithMedianAndSlowestToFastestBand() {
    StrideBandwidth chart = new StrideBandwidth();
    List<StrideBandwidth.Change> changes = new java.util.ArrayList<>();
    int devices = StrideBandwidth.MAX_DEVICE_LINES + 5; // 21: 11 of one model, 10 of the other
    for (int i = 0; i < devices; i++) {
      io.busload.protocol.DeviceInfo device = new io.busload.protocol.DeviceInfo("host-" + i + "/cuda:0",
          io.busload.protocol.DeviceInfo.CUDA, i % 2 == 0 ? "NVIDIA H100" : "NVIDIA H200", "GPU-" + i, "9.0", 132,
          50L << 20, 80L << 30, 2_619_000_000L, 5120, 3.35e12, "580");
      changes.add(chart.add(stride("s1", device, 1, (1000 + i) * 1e9, T0.plusSeconds(i))));
    }

    assertThat(chart.aggregated()).isTrue();
    assertThat(changes.get(StrideBandwidth.MAX_DEVICE_LINES)).as("the switch redraws")
        .isInstanceOf(StrideBandwidth.Change.Redraw.class);
    // After the switch a result moves its model's point; nothing else is redrawn.
    assertThat(changes.getLast()).isEqualTo(new StrideBandwidth.Change.Point("model|NVIDIA H100|stride-copy-fp32",
        1, 1010, 1000, 20));
    JsonNode series = chart.option().get("series");
    List<JsonNode> main = new java.util.ArrayList<>();
    series.forEach(s -> {
      if (StrideBandwidth.isMainSeries(s.get("id").asText())) {
        main.add(s);
      }
    });
    assertThat(main).hasSize(2);
    assertThat(main.get(0).get("name").asText()).contains("NVIDIA H100", "every device");
    assertThat(main.get(0).get("data").toString()).isEqualTo("[[1.0,1010.0]]"); // median of 1000, 1002, ..., 1020
    assertThat(main.get(1).get("data").toString()).isEqualTo("[[1.0,1010.0]]"); // median of 1001, 1003, ..., 1019
    assertThat(series.toString()).contains("ceiling|peak|model|NVIDIA H100").doesNotContain("ceiling|peak|host-");
  }

  @Test
  void add_invalidResult_isIgnored() {
    StrideBandwidth chart = new StrideBandwidth();
    KernelResult invalid = Results.result("s1", CPU, "stride-copy-fp32", Map.of("stride", 2), false, 5e9, T0);

    assertThat(chart.add(invalid)).isInstanceOf(StrideBandwidth.Change.Ignored.class);
    assertThat(chart.pointCount()).isZero();
  }

  @Test
  void add_resultWithoutStride_isIgnored() {
    StrideBandwidth chart = new StrideBandwidth();
    KernelResult noStride = Results.result("s1", CPU, "memcpy", Map.of("elements", 1024), true, 5e9, T0);

    assertThat(chart.add(noStride)).isInstanceOf(StrideBandwidth.Change.Ignored.class);
  }

  @Test
  void add_firstPointOfDevice_redrawsThenAppends() {
    StrideBandwidth chart = new StrideBandwidth();

    StrideBandwidth.Change first = chart.add(stride("s1", GPU, 1, 3.0e12, T0));
    StrideBandwidth.Change second = chart.add(stride("s1", GPU, 2, 1.5e12, T0.plusSeconds(1)));

    assertThat(first).isInstanceOf(StrideBandwidth.Change.Redraw.class);
    assertThat(second).isEqualTo(new StrideBandwidth.Change.Point("host-b/cuda:0|stride-copy-fp32", 2, 1500.0, 1500.0, 0.0));
    assertThat(chart.sweepId()).isEqualTo("s1");
  }

  @Test
  void add_sameStrideAgain_replacesThePoint() {
    StrideBandwidth chart = new StrideBandwidth();
    chart.add(stride("s1", CPU, 8, 1e9, T0));

    chart.add(stride("s1", CPU, 8, 2e9, T0.plusSeconds(1)));

    assertThat(chart.option().get("series").get(0).get("data").toString()).isEqualTo("[[8.0,2.0]]");
  }

  @Test
  void add_resultOfNewerSweep_startsTheChartAfresh() {
    StrideBandwidth chart = new StrideBandwidth();
    chart.load("s1", List.of(stride("s1", CPU, 1, 8e9, T0), stride("s1", GPU, 1, 3e12, T0)));

    StrideBandwidth.Change change = chart.add(stride("s2", CPU, 1, 9e9, T0.plusSeconds(60)));

    assertThat(change).isInstanceOf(StrideBandwidth.Change.Redraw.class);
    assertThat(chart.sweepId()).isEqualTo("s2");
    assertThat(chart.option().get("series")).filteredOn(s -> StrideBandwidth.isMainSeries(s.get("id").asText()))
        .hasSize(1);
    assertThat(chart.option().at("/title/subtext").asText()).isEqualTo("sweep s2");
  }

  @Test
  void add_lateResultOfOlderSweep_isIgnored() {
    StrideBandwidth chart = new StrideBandwidth();
    chart.load("s2", List.of(stride("s2", CPU, 1, 8e9, T0.plusSeconds(60))));

    StrideBandwidth.Change change = chart.add(stride("s1", CPU, 1, 9e9, T0));

    assertThat(change).isInstanceOf(StrideBandwidth.Change.Ignored.class);
    assertThat(chart.sweepId()).isEqualTo("s2");
  }

  @Test
  void option_empty_hasTitleAxesWithUnitsLegendAndExactTooltip() {
    JsonNode option = new StrideBandwidth().option();

    assertThat(option.at("/title/text").asText()).isEqualTo("Bandwidth against stride");
    assertThat(option.at("/xAxis/name").asText()).isEqualTo("stride (elements)");
    assertThat(option.at("/yAxis/name").asText()).contains("GB/s");
    assertThat(option.has("legend")).isTrue();
    assertThat(option.at("/tooltip/formatter").asText()).contains("{@[1]} GB/s");
  }

  @Test
  void option_resultWithSpreadAndMemcpy_bandAroundTheLineAndBothCeilings() {
    StrideBandwidth chart = new StrideBandwidth();
    KernelResult wide = Results.result("s1", GPU, "stride-copy-fp32", java.util.Map.of("stride", 2), true, 2e12, T0);
    KernelResult spread = KernelResult.builder().schemaVersion(wide.schemaVersion()).id(wide.id())
        .runId(wide.runId()).sweepId(wide.sweepId()).agentId(wide.agentId()).agentVersion(wide.agentVersion())
        .fatbinHash(wide.fatbinHash()).device(wide.device()).suite(wide.suite()).kernel(wide.kernel())
        .params(wide.params()).valid(true).mismatches(List.of()).medianSeconds(wide.medianSeconds())
        .minSeconds(wide.bytes() / 2.5e12).maxSeconds(wide.bytes() / 1.5e12).relativeSpread(0.5)
        .samples(wide.samples()).launchesPerSample(10).warmupLaunches(3).bytesRead(wide.bytesRead())
        .bytesWritten(wide.bytesWritten()).bytes(wide.bytes()).bandwidth(2e12).method("m").measuredAt(T0).build();
    chart.add(spread);
    chart.add(Results.result("s1", GPU, "memcpy-d2d", java.util.Map.of(), true, 4e12, T0.plusSeconds(1)));

    JsonNode series = chart.option().get("series");

    assertThat(series.findValuesAsText("id")).containsExactly("host-b/cuda:0|stride-copy-fp32",
        "host-b/cuda:0|stride-copy-fp32#low", "host-b/cuda:0|stride-copy-fp32#band", "ceiling|memcpy|host-b/cuda:0",
        "ceiling|peak|host-b/cuda:0");
    assertThat(series.get(1).get("data").toString()).isEqualTo("[[2.0,1500.0]]");
    assertThat(series.get(2).get("data").toString()).isEqualTo("[[2.0,1000.0]]");
    assertThat(series.get(3).at("/data/0/1").asDouble()).isEqualTo(4000.0);
    assertThat(series.get(4).at("/data/0/1").asDouble()).isEqualTo(4900.0);
  }
}
