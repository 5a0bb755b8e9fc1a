package io.busload.dashboard.history;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.dashboard.coordinator.HistoryPoint;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A History line says how much of it came by push, and which other tool measured it, in its name (legend and
 * tooltip).
 */
class HistoryTest {
  private static HistoryPoint point(String device, int hour, boolean pushed) {
    return new HistoryPoint(UUID.randomUUID(), device, "NVIDIA H200", Instant.EPOCH.plusSeconds(3600L * hour), 4e12,
        pushed);
  }

  @Test
  void option_pushedFleetAndMixedLines_namedAccordingly() {
    List<HistoryPoint> points = List.of(point("a/cuda:0", 1, true), point("a/cuda:0", 2, true),
        point("b/cuda:0", 1, false), point("c/cuda:0", 1, true), point("c/cuda:0", 2, false),
        point("c/cuda:0", 3, false));

    var option = History.option("stride-copy-fp32", "size=1024;stride=4", points, List.of());

    assertThat(option.at("/series/0/name").asText()).isEqualTo("NVIDIA H200 (a/cuda:0), pushed");
    assertThat(option.at("/series/1/name").asText()).isEqualTo("NVIDIA H200 (b/cuda:0)");
    assertThat(option.at("/series/2/name").asText()).isEqualTo("NVIDIA H200 (c/cuda:0), 1 of 3 pushed");
  }

  @Test
  void option_oneDeviceIdTwoModels_oneLineEach() {
    // Two lent GPU machines, both called "vm": an H100 and an H200 under one device id.
    List<HistoryPoint> points = List.of(
        new HistoryPoint(UUID.randomUUID(), "vm/cuda:0", "NVIDIA H100 80GB HBM3", Instant.EPOCH, 3e12, true),
        new HistoryPoint(UUID.randomUUID(), "vm/cuda:0", "NVIDIA H200", Instant.EPOCH.plusSeconds(60), 4e12, true));

    var option = History.option("stride-copy-fp32", "size=1024;stride=1", points, List.of());

    assertThat(option.at("/series/0/name").asText()).isEqualTo("NVIDIA H100 80GB HBM3 (vm/cuda:0), pushed");
    assertThat(option.at("/series/0/data").size()).isEqualTo(1);
    assertThat(option.at("/series/1/name").asText()).isEqualTo("NVIDIA H200 (vm/cuda:0), pushed");
    assertThat(option.at("/series/1/data").size()).isEqualTo(1);
  }

  @Test
  void option_anotherToolsLine_namesTheToolAndVersion() {
    List<HistoryPoint> points = List.of(
        new HistoryPoint(UUID.randomUUID(), "lab/cuda:0", "NVIDIA H100 80GB HBM3", Instant.EPOCH, 2.9e12, true,
            "BabelStream 5.0"),
        new HistoryPoint(UUID.randomUUID(), "lab/cuda:0", "NVIDIA H100 80GB HBM3", Instant.EPOCH.plusSeconds(60),
            2.9e12, true, "BabelStream 5.0"));

    var option = History.option("babelstream-copy", "elements=33554432;type=fp64", points, List.of());

    assertThat(option.at("/series/0/name").asText())
        .isEqualTo("NVIDIA H100 80GB HBM3 (lab/cuda:0), pushed, measured by BabelStream 5.0");
  }
}
