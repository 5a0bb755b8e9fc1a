package io.busload.coordinator.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.busload.coordinator.Fixtures;
import io.busload.kernels.Catalog;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import io.busload.testsupport.LogCapture;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The result gauges' bounds: a cap on devices, only the catalog's families, the newest run winning. */
class ResultGaugesTest {
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

  @Test
  void stored_moreDevicesThanTheCap_restLeftOutCountedAndWarnedOnce() {
    ResultGauges gauges = new ResultGauges(registry, 2);
    try (LogCapture log = LogCapture.of(ResultGauges.class)) {
      for (int i = 0; i < 5; i++) {
        gauges.stored(List.of(result(Fixtures.gpu("h", i), "r" + i, "stride-copy-fp32", 1e12, Instant.now())));
      }
      gauges.cohort(Set.of("h/cuda:4"), Map.of("h/cuda:4", 2L));

      assertThat(log.messages()).singleElement().asString().contains("h/cuda:2", ResultGauges.MAX_DEVICES_SETTING);
    }
    String text = registry.scrape();
    assertThat(text.lines().filter(l -> l.startsWith(ResultGauges.BANDWIDTH + "{"))).hasSize(2);
    assertThat(text).contains(ResultGauges.LEFT_OUT + " 3.0").doesNotContain("h/cuda:4")
        .doesNotContain(ResultGauges.COHORT_FLAGS + "{");
  }

  @Test
  void stored_kernelTheCatalogDoesNotName_noSeries() {
    ResultGauges gauges = new ResultGauges(registry, 10);

    gauges.stored(List.of(result(Fixtures.gpu("h", 0), "r", "made-up-kernel", 1e12, Instant.now()),
        result(Fixtures.gpu("h", 0), "r", Catalog.MEMCPY_D2D.name(), 2e12, Instant.now())));

    assertThat(registry.scrape()).doesNotContain(ResultGauges.BANDWIDTH + "{");
    assertThat(ResultGauges.family("stride-copy-fp32")).isEqualTo("stride");
    assertThat(ResultGauges.family(Catalog.MEMCPY_D2D.name())).isNull();
  }

  @Test
  void stored_newerRun_replacesTheFigureAndItsCeiling_olderRunIgnored() {
    ResultGauges gauges = new ResultGauges(registry, 10);
    DeviceInfo gpu = Fixtures.gpu("h", 0);
    Instant t = Instant.parse("2026-11-01T00:00:00Z");
    gauges.stored(List.of(result(gpu, "old", Catalog.MEMCPY_D2D.name(), 2e12, t),
        result(gpu, "old", "stride-copy-fp32", 1.8e12, t)));

    gauges.stored(List.of(result(gpu, "new", "stride-copy-fp32", 1.0e12, t.plusSeconds(86_400)),
        result(gpu, "new", Catalog.MEMCPY_D2D.name(), 4e12, t.plusSeconds(86_400))));
    gauges.stored(List.of(result(gpu, "older", "stride-copy-fp32", 3.9e12, t.minusSeconds(86_400))));

    String text = registry.scrape();
    assertThat(text).contains(ResultGauges.BANDWIDTH + "{device=\"h/cuda:0\",family=\"stride\"} 1.0E12")
        .contains(ResultGauges.FRACTION + "{device=\"h/cuda:0\",family=\"stride\"} 0.25");
  }

  @Test
  void maxDevices_notANumber_namesTheSetting() {
    assertThat(ResultGauges.maxDevices(Map.of())).isEqualTo(ResultGauges.DEFAULT_MAX_DEVICES);
    assertThat(ResultGauges.maxDevices(Map.of(ResultGauges.MAX_DEVICES_SETTING, " 50 "))).isEqualTo(50);
    assertThatThrownBy(() -> ResultGauges.maxDevices(Map.of(ResultGauges.MAX_DEVICES_SETTING, "many")))
        .hasMessageContaining(ResultGauges.MAX_DEVICES_SETTING);
  }

  private static KernelResult result(DeviceInfo gpu, String run, String kernel, double bandwidth, Instant at) {
    KernelResult base = Fixtures.result("s", run, "h", gpu, 1, true, at);
    var tree = JsonCodec.MAPPER.<com.fasterxml.jackson.databind.node.ObjectNode>valueToTree(base);
    tree.put("kernel", kernel);
    tree.put("bandwidth", bandwidth);
    return JsonCodec.MAPPER.convertValue(tree, KernelResult.class);
  }

  @Test
  void health_verdictsAsOrdinals_aStoredOneReadBackGivesWayToALiveOne() {
    ResultGauges gauges = new ResultGauges(registry, 10);

    gauges.health("h/cuda:0", io.busload.analysis.health.HealthState.DEGRADED);
    gauges.seedHealth("h/cuda:0", io.busload.analysis.health.HealthState.HEALTHY);
    gauges.seedHealth("h/cuda:1", io.busload.analysis.health.HealthState.FAILED);
    gauges.health("h/cuda:1", io.busload.analysis.health.HealthState.HEALTHY);

    String text = registry.scrape();
    assertThat(text).contains(ResultGauges.HEALTH + "{device=\"h/cuda:0\"} 1.0")
        .contains(ResultGauges.HEALTH + "{device=\"h/cuda:1\"} 0.0");
  }
}
