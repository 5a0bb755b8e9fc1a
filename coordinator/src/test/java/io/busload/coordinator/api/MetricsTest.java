package io.busload.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.coordinator.Coordinator;
import io.busload.coordinator.CoordinatorSettings;
import io.busload.coordinator.Fixtures;
import io.busload.coordinator.Http;
import io.busload.coordinator.PrometheusText.Sample;
import io.busload.coordinator.PrometheusText;
import io.busload.coordinator.fleet.ResultGauges;
import io.busload.kernels.Catalog;
import io.busload.kernels.Family;
import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import io.busload.testsupport.Await;
import io.busload.testsupport.FleetCerts;
import io.busload.testsupport.SettableClock;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /metrics} of a real coordinator (real PostgreSQL, real HTTP, fleet certificates and a bridge) after four
 * H100s reported a run each, one of them slow on the coalesced stride copy: the newest bandwidth and its fraction of
 * the ceiling per device and family, each device's cohort flags, read back by Prometheus's own client parser; and
 * deploy/grafana's dashboard asks only for metrics that the coordinator exposes.
 */
class MetricsTest {
  private static final Path DASHBOARD = Path.of("").toAbsolutePath().getParent().resolve("deploy/grafana/busload.json");
  /** Names in a PromQL expression that are metrics, not functions, labels or keywords: every one of ours is busload_. */
  private static final Pattern METRIC = Pattern.compile("\\bbusload_[a-z0-9_]+\\b");
  private static final double CEILING = 3.0e12;
  private static final double COALESCED = 2.7e12;
  private static final double SLOW_COALESCED = 1.35e12;
  private static final double STRIDED = 0.4e12;

  @TempDir Path dir;
  private final SettableClock clock = new SettableClock(Instant.now());
  private Vertx vertx;
  private Coordinator coordinator;
  private Http http;
  private List<DeviceInfo> gpus;
  private CoordinatorSettings settings;

  @BeforeEach
  void start() throws Exception {
    Path certs = FleetCerts.issue(dir.resolve("certs"), "--coordinator", "c1@127.0.0.1", "--days", "400");
    settings = RestApiTestSettings.withFleetTls(dir.resolve("data"), certs, false).withBridgePort(0);
    vertx = Vertx.vertx();
    coordinator = Coordinator.deploy(vertx, settings, clock).await(60, TimeUnit.SECONDS);
    http = new Http(coordinator.httpPort());
    gpus = List.of(Fixtures.gpu("m1", 0), Fixtures.gpu("m1", 1), Fixtures.gpu("m1", 2), Fixtures.gpu("m1", 3));
    assertThat(send(Addresses.AGENT_HELLO, Fixtures.hello("m1", gpus.toArray(DeviceInfo[]::new))).ok()).isTrue();
  }

  @AfterEach
  void stop() throws Exception {
    LocalCoordinator.stop(coordinator, vertx);
  }

  @Test
  void metrics_fourDevicesOneSlow_gaugesPerDeviceAndFamilyAndCohortFlags_readByPrometheusParser() throws Exception {
    measureAll();
    awaitCohortCheck();

    List<Sample> samples = PrometheusText.parse(http.get("/metrics").body());

    assertResultGauges(samples);
    for (int i = 0; i < gpus.size(); i++) {
      assertThat(value(samples, ResultGauges.COHORT_FLAGS, gpus.get(i).id(), null)).as(gpus.get(i).id())
          .isEqualTo(i == 3 ? 1.0 : 0.0);
    }
    assertThat(value(samples, ResultGauges.LEFT_OUT, null, null)).isZero();
    assertThat(samples).extracting(Sample::name).contains("busload_tls_expiry_seconds", "busload_results_ingested_total");
  }

  /**
   * A coordinator started again on the same database shows the gauges before any new result arrives: each device's
   * newest run that timed memcpy-d2d is read back (they started empty before).
   */
  @Test
  void metrics_coordinatorRestarted_gaugesReadBackFromTheStore() throws Exception {
    measureAll();
    coordinator.stop().await(20, TimeUnit.SECONDS);
    coordinator = Coordinator.deploy(vertx, settings, clock).await(60, TimeUnit.SECONDS);
    http = new Http(coordinator.httpPort());

    String slow = ResultGauges.BANDWIDTH + "{device=\"" + gpus.get(3).id() + "\",family=\"stride\"}";
    Await.until(() -> http.get("/metrics").body().contains(slow), Duration.ofSeconds(30),
        "the restarted coordinator's gauges read back");
    assertResultGauges(PrometheusText.parse(http.get("/metrics").body()));
  }

  /**
   * What {@link #measureAll} stored, as gauges: per device the stride and transpose bandwidths and the stride's
   * fraction of the ceiling; one series per device and family measured, none for the memcpy ceiling.
   */
  private void assertResultGauges(List<Sample> samples) {
    for (int i = 0; i < gpus.size(); i++) {
      String device = gpus.get(i).id();
      double coalesced = i == 3 ? SLOW_COALESCED : COALESCED;
      assertThat(value(samples, ResultGauges.BANDWIDTH, device, "stride")).as(device).isEqualTo(coalesced);
      assertThat(value(samples, ResultGauges.FRACTION, device, "stride")).as(device)
          .isCloseTo(coalesced / CEILING, org.assertj.core.data.Offset.offset(1e-12));
      assertThat(value(samples, ResultGauges.BANDWIDTH, device, "transpose")).as(device).isEqualTo(STRIDED);
    }
    assertThat(samples).filteredOn(s -> s.name().equals(ResultGauges.BANDWIDTH))
        .as("one series per device and family measured, none for the memcpy ceiling").hasSize(8)
        .allSatisfy(s -> assertThat(s.type()).isEqualTo("gauge"));
  }

  @Test
  void grafanaDashboard_everyMetricItQueries_exposedByTheCoordinator() throws Exception {
    measureAll();
    awaitCohortCheck();
    Set<String> exposed = new TreeSet<>();
    PrometheusText.parse(http.get("/metrics").body()).forEach(s -> exposed.add(s.name()));

    JsonNode dashboard = JsonCodec.MAPPER.readTree(Files.readString(DASHBOARD));
    List<String> queries = new ArrayList<>();
    collectQueries(dashboard, queries);
    Set<String> asked = new TreeSet<>();
    for (String query : queries) {
      Matcher m = METRIC.matcher(query);
      boolean any = false;
      while (m.find()) {
        asked.add(m.group());
        any = true;
      }
      assertThat(any).as("query names a Busload metric: " + query).isTrue();
    }

    assertThat(queries).as("PromQL in the panels and variables").hasSizeGreaterThanOrEqualTo(9);
    assertThat(asked).contains(ResultGauges.BANDWIDTH, ResultGauges.FRACTION, ResultGauges.COHORT_FLAGS);
    assertThat(exposed).as("metrics the dashboard queries, against those /metrics exposes").containsAll(asked);
  }

  /**
   * Moves the clock past the leader's next cohort check and waits for one that saw every device: the check at the
   * start may have run while the results were still arriving.
   */
  private void awaitCohortCheck() throws InterruptedException {
    clock.advance(Duration.ofMinutes(11));
    String slowFlagged = ResultGauges.COHORT_FLAGS + "{device=\"" + gpus.get(3).id() + "\"} 1.0";
    Await.until(() -> http.get("/metrics").body().contains(slowFlagged), Duration.ofSeconds(30),
        "a cohort check over all four devices flagged the slow one");
  }

  /** Each device's run: the memcpy ceiling, the stride copy at stride 1 (coalesced) and 8, one transpose case. */
  private void measureAll() {
    String transpose = Catalog.families().stream().filter(f -> f.name().equals("transpose")).findFirst()
        .map(Family::kernels).orElseThrow().getFirst().name();
    for (int i = 0; i < gpus.size(); i++) {
      DeviceInfo gpu = gpus.get(i);
      String run = "run-" + i;
      Instant at = clock.instant().minusSeconds(60);
      assertThat(send(Addresses.RESULTS, result(gpu, run, Catalog.MEMCPY_D2D.name(), 1, CEILING, at)).ok()).isTrue();
      assertThat(send(Addresses.RESULTS, result(gpu, run, "stride-copy-fp32", 1, i == 3 ? SLOW_COALESCED : COALESCED,
          at)).ok()).isTrue();
      assertThat(send(Addresses.RESULTS, result(gpu, run, "stride-copy-fp32", 8, STRIDED, at)).ok()).isTrue();
      assertThat(send(Addresses.RESULTS, result(gpu, run, transpose, 1, STRIDED, at)).ok()).isTrue();
    }
  }

  private static void collectQueries(JsonNode node, List<String> into) {
    if (node.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        if ((e.getKey().equals("expr") || e.getKey().equals("definition")) && e.getValue().isTextual()) {
          into.add(e.getValue().asText());
        } else {
          collectQueries(e.getValue(), into);
        }
      }
    } else if (node.isArray()) {
      node.forEach(child -> collectQueries(child, into));
    }
  }

  private static double value(List<Sample> samples, String name, String device, String family) {
    return samples.stream().filter(s -> s.name().equals(name))
        .filter(s -> device == null || device.equals(s.labels().get("device")))
        .filter(s -> family == null || family.equals(s.labels().get("family")))
        .mapToDouble(Sample::value).boxed().reduce((a, b) -> {
          throw new AssertionError("more than one sample of " + name + " " + device + " " + family);
        }).orElseThrow(() -> new AssertionError("no sample of " + name + " " + device + " " + family));
  }

  private static KernelResult result(DeviceInfo gpu, String run, String kernel, long stride, double bandwidth,
      Instant at) {
    long bytes = 8L << 20;
    double median = bytes / bandwidth;
    return KernelResult.builder().id(UUID.randomUUID()).runId(run).sweepId("sweep-m").agentId("m1")
        .agentVersion("0.1.0").fatbinHash("fatbin-abc").device(gpu).suite("coalescing").kernel(kernel)
        .params(Map.of("stride", stride, "elements", 1024)).valid(true).mismatches(List.of()).medianSeconds(median)
        .minSeconds(median * 0.99).maxSeconds(median * 1.02).relativeSpread(0.03)
        .samples(List.of(median * 0.99, median, median * 1.02)).launchesPerSample(10).warmupLaunches(5)
        .bytesRead(bytes / 2).bytesWritten(bytes / 2).bytes(bytes).bandwidth(bandwidth)
        .method("10 launches per event pair, median of 3 samples").measuredAt(at.truncatedTo(ChronoUnit.MICROS))
        .build();
  }

  private Ack send(String address, Object body) {
    try {
      return vertx.eventBus().<Ack>request(address, body).await(10, TimeUnit.SECONDS).body();
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("no reply on " + address + " in 10 s", e);
    }
  }
}
