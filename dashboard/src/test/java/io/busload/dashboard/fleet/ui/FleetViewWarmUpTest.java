package io.busload.dashboard.fleet.ui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import com.sun.net.httpserver.HttpServer;
import io.busload.dashboard.coordinator.CoordinatorClient;
import io.busload.testsupport.Ports;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The Fleet view's warm-up (first open) reads what an open reads, without a browser or a UI. */
class FleetViewWarmUpTest {
  private HttpServer server;
  private final Map<String, AtomicInteger> asked = new ConcurrentHashMap<>();

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    answer("/api/agents", """
        [{"agentId":"b","host":"host-b","agentVersion":"0.1.0","online":true,"lastSeen":"2026-11-22T01:00:00Z",
          "labels":["rack=r1"],
          "devices":[{"id":"b/cuda:0","kind":"cuda","name":"NVIDIA H200","fingerprint":"0123456789abcdef",
            "runId":"r1","kernel":"stride-copy-fp32","completed":2,"total":9},
            {"id":"b/cuda:1","kind":"cuda","name":"NVIDIA H200","fingerprint":"fedcba9876543210"}]}]
        """);
    answer("/api/runs", "[]");
    answer("/api/cohort-flags", "{\"flags\":[]}");
    answer("/api/pushes/devices", "[]");
    answer("/api/certificates", "{\"warnDays\":30,\"nearExpiry\":[]}");
    answer("/api/devices/health", """
        [{"deviceId":"b/cuda:1","model":"NVIDIA H200","state":"FAILED","reasons":[{"kind":"XID","state":"FAILED",
          "value":1,"sentence":"1 XID critical error(s) during the run: XID 79"}],"notRead":[],"runId":"r0",
          "resultId":"00000000-0000-0000-0000-000000000001","judgedAt":"2026-11-22T00:59:00Z",
          "since":"2026-11-22T00:59:00Z"}]
        """);
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private void answer(String path, String json) {
    server.createContext(path, exchange -> {
      asked.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
      byte[] body = json.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
  }

  @Test
  void warmUp_threeRounds_readsAgentsQueuedRunsCohortCertificatesPushedDevicesAndHealthEachRound() {
    CoordinatorClient client = new CoordinatorClient("http://127.0.0.1:" + server.getAddress().getPort());

    FleetView.warmUp(client, 3);

    assertThat(asked).containsOnlyKeys("/api/agents", "/api/runs", "/api/cohort-flags", "/api/pushes/devices",
        "/api/certificates", "/api/devices/health");
    assertThat(asked.values()).allSatisfy(count -> assertThat(count).hasValue(3));
  }

  @Test
  void read_healthVerdicts_byDeviceWithReasonsAndAPartForTheState() {
    CoordinatorClient client = new CoordinatorClient("http://127.0.0.1:" + server.getAddress().getPort());

    FleetView.Read read = FleetView.read(client, false);

    assertThat(read.health()).containsOnlyKeys("b/cuda:1");
    assertThat(read.health().get("b/cuda:1").text()).isEqualTo("FAILED: 1 XID critical error(s) during the run: XID 79");
    assertThat(FleetView.healthPart(read.health().get("b/cuda:1"))).isEqualTo("health-failed");
    assertThat(FleetView.healthPart(read.health().get("b/cuda:0"))).isNull();
  }

  @Test
  void warmUp_coordinatorUnreachable_endsWithoutThrowing() {
    int closed = Ports.free();
    CoordinatorClient client = new CoordinatorClient("http://127.0.0.1:" + closed);

    assertThatCode(() -> FleetView.warmUp(client, 3)).doesNotThrowAnyException();
  }
}
