package io.busload.dashboard.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.busload.dashboard.Results;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import io.busload.testsupport.Ports;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Against a real HTTP server on loopback answering as docs/contract.md says the coordinator does. */
class CoordinatorClientTest {
  private HttpServer server;
  private CoordinatorClient client;
  private final AtomicReference<String> lastRequest = new AtomicReference<>();

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.start();
    client = new CoordinatorClient("http://127.0.0.1:" + server.getAddress().getPort());
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private void answer(String path, int status, String contentType, byte[] body) {
    server.createContext(path, exchange -> {
      lastRequest.set(exchange.getRequestMethod() + " " + exchange.getRequestURI() + " "
          + new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
      exchange.getResponseHeaders().add("Content-Type", contentType);
      exchange.sendResponseHeaders(status, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
  }

  @Test
  void agents_contractJson_readsDevicesWithFingerprintAndCurrentRun() {
    answer("/api/agents", 200, "application/json", """
        [{"agentId":"b","host":"host-b","agentVersion":"0.1.0","online":true,"lastSeen":"2026-11-22T01:00:00Z",
          "devices":[{"id":"b/cuda:0","kind":"cuda","name":"NVIDIA H200","uuid":"GPU-1","computeCapability":"9.0",
            "multiprocessors":132,"l2Bytes":62914560,"memoryBytes":1,"memoryClockHz":1,"busWidthBits":6144,
            "theoreticalPeakBytesPerSecond":4.8e12,"driverVersion":"13.0","fingerprint":"0123456789abcdef",
            "runId":"r1","kernel":"stride-copy-fp32","completed":2,"total":9}]}]
        """.getBytes(StandardCharsets.UTF_8));

    List<Agent> agents = client.agents();

    assertThat(agents).singleElement().satisfies(agent -> {
      assertThat(agent.online()).isTrue();
      assertThat(agent.lastSeen()).isEqualTo(Instant.parse("2026-11-22T01:00:00Z"));
      assertThat(agent.devices()).singleElement().isEqualTo(new AgentDevice("b/cuda:0", "cuda", "NVIDIA H200",
          "9.0", "0123456789abcdef", "r1", "stride-copy-fp32", 2, 9));
    });
  }

  @Test
  void results_storedKernelResults_readWithTheProtocolMapping() {
    KernelResult stored = Results.stride("s1", Results.GPU, 4, 1.2e12, Instant.parse("2026-11-22T01:00:00Z"));
    answer("/api/results", 200, "application/json", JsonCodec.toJson(List.of(stored)));

    List<KernelResult> results = client.results("s1", 50);

    assertThat(results).singleElement().satisfies(r -> {
      assertThat(r.id()).isEqualTo(stored.id());
      assertThat(r.bandwidth()).isEqualTo(1.2e12);
      assertThat(r.params()).containsEntry("stride", 4);
    });
    assertThat(lastRequest.get()).startsWith("GET /api/results?sweepId=s1&limit=50");
  }

  @Test
  void startSweep_created_postsTheSuiteAndReturnsTheSweepId() {
    answer("/api/sweeps", 201, "application/json",
        "{\"id\":\"sw-1\",\"runs\":[{\"runId\":\"r1\",\"deviceId\":\"b/cpu\"}]}".getBytes(StandardCharsets.UTF_8));

    SweepStarted started = client.startSweep("stride");

    assertThat(started.id()).isEqualTo("sw-1");
    assertThat(started.runs()).containsExactly(new SweepStarted.Run("r1", "b/cpu"));
    assertThat(lastRequest.get()).isEqualTo("POST /api/sweeps {\"suite\":\"stride\"}");
  }

  @Test
  void startSweep_problemJson_messageCarriesTheDetail() {
    answer("/api/sweeps", 400, "application/problem+json", """
        {"type":"about:blank","title":"Bad Request","status":400,"detail":"no online device","field":"devices"}
        """.getBytes(StandardCharsets.UTF_8));

    assertThatThrownBy(() -> client.startSweep("stride"))
        .isInstanceOf(CoordinatorException.class)
        .hasMessage("POST /api/sweeps was refused (400): no online device");
  }

  @Test
  void writes_tokenFileAppearingAfterStart_sendBearerToken_readsSendNone(@TempDir Path dir) throws IOException {
    List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
    server.createContext("/api/", exchange -> {
      seen.add(exchange.getRequestMethod() + " " + exchange.getRequestHeaders().getFirst("Authorization"));
      byte[] body = exchange.getRequestMethod().equals("GET") ? "[]".getBytes(StandardCharsets.UTF_8)
          : "{\"sweepId\":\"s1\",\"runs\":[]}".getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(exchange.getRequestMethod().equals("DELETE") ? 204 : 200,
          exchange.getRequestMethod().equals("DELETE") ? -1 : body.length);
      if (!exchange.getRequestMethod().equals("DELETE")) {
        exchange.getResponseBody().write(body);
      }
      exchange.close();
    });
    Path tokenFile = dir.resolve("api-token");
    CoordinatorClient withToken = new CoordinatorClient("http://127.0.0.1:" + server.getAddress().getPort(), "",
        tokenFile.toString(), "");

    withToken.startSweep("stride");
    Files.writeString(tokenFile, "tok-123\n");
    withToken.startSweep("stride");
    withToken.deleteSchedule("x");
    withToken.agents();

    assertThat(seen).containsExactly("POST null", "POST Bearer tok-123", "DELETE Bearer tok-123", "GET null");
  }

  @Test
  void notifications_targetsAndLog_readWithTheTokenAndSecretsOnlyNamed() {
    List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
    server.createContext("/api/notifications/", exchange -> {
      seen.add(exchange.getRequestURI() + " " + exchange.getRequestHeaders().getFirst("Authorization"));
      byte[] body = (exchange.getRequestURI().getPath().endsWith("/targets") ? """
          [{"id":"7c0e","name":"lab slack","kind":"slack","settings":{},"secrets":{"url":"set"},
            "filter":{"events":["CHANGE_POINT"],"minSeverity":"WARNING","labels":[],"models":["H100"]},
            "quiet":"PT1H","createdBy":"admin","createdAt":"2026-11-27T03:00:00Z"}]
          """ : """
          [{"id":"d1","targetId":"7c0e","targetName":"lab slack","eventKey":"change-point/g/cuda:0/k/p/r",
            "kind":"CHANGE_POINT","severity":"WARNING","title":"Slower: k -5.0%","status":"FAILED","attempts":6,
            "nextAttemptAt":"2026-11-27T04:00:00Z","lastCode":500,"lastReply":"down","lastError":"HTTP 500",
            "createdAt":"2026-11-27T03:00:00Z","updatedAt":"2026-11-27T04:00:00Z"}]
          """).getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    CoordinatorClient withToken = new CoordinatorClient("http://127.0.0.1:" + server.getAddress().getPort(),
        "tok-9", "", "");

    List<NotificationTarget> targets = withToken.notificationTargets();
    List<NotificationDelivery> log = withToken.notificationDeliveries(50);

    assertThat(seen).containsExactly("/api/notifications/targets Bearer tok-9",
        "/api/notifications/deliveries?limit=50 Bearer tok-9");
    assertThat(targets).singleElement().satisfies(t -> {
      assertThat(t.secrets()).containsExactly(java.util.Map.entry("url", "set"));
      assertThat(t.filter().models()).containsExactly("H100");
      assertThat(io.busload.dashboard.settings.ui.SettingsView.filter(t.filter()))
          .isEqualTo("CHANGE_POINT, WARNING and above, models H100");
    });
    assertThat(log).singleElement().satisfies(d -> {
      assertThat(d.status()).isEqualTo("FAILED");
      assertThat(d.lastCode()).isEqualTo(500);
      assertThat(d.attempts()).isEqualTo(6);
    });
  }

  @Test
  void agents_nobodyListening_saysTheCoordinatorIsUnreachable() {
    int closedPort = Ports.free();
    CoordinatorClient nowhere = new CoordinatorClient("http://127.0.0.1:" + closedPort);

    assertThatThrownBy(nowhere::agents)
        .isInstanceOf(CoordinatorException.class)
        .hasMessageStartingWith("the coordinator at http://127.0.0.1:" + closedPort + "/ is unreachable");
  }

  @Test
  void latestResultsKernelsAndHistory_boundedReadsOfTheViews_queryAndJsonAsTheCoordinatorAnswers() {
    KernelResult stored = Results.stride("s1", Results.GPU, 4, 1.2e12, Instant.parse("2026-11-22T01:00:00Z"));
    answer("/api/results/latest", 200, "application/json", JsonCodec.toJson(List.of(stored)));
    answer("/api/kernels", 200, "application/json",
        "[{\"kernel\":\"stride-copy-fp32\",\"params\":\"size=1024;stride=4\"}]".getBytes(StandardCharsets.UTF_8));
    answer("/api/history", 200, "application/json", ("[{\"resultId\":\"" + stored.id() + "\",\"deviceId\":\"b/cuda:0\","
        + "\"model\":\"NVIDIA H200\",\"measuredAt\":\"2026-11-22T01:00:00Z\",\"bandwidth\":1.2E12}]")
        .getBytes(StandardCharsets.UTF_8));

    assertThat(client.latestResults(null, "NVIDIA H200")).extracting(KernelResult::id).containsExactly(stored.id());
    assertThat(lastRequest.get()).startsWith("GET /api/results/latest?model=NVIDIA+H200");
    assertThat(client.kernels()).containsExactly(new KernelChoice("stride-copy-fp32", "size=1024;stride=4"));
    assertThat(client.history("stride-copy-fp32", "size=1024;stride=4", 10)).containsExactly(new HistoryPoint(
        stored.id(), "b/cuda:0", "NVIDIA H200", Instant.parse("2026-11-22T01:00:00Z"), 1.2e12));
    assertThat(lastRequest.get())
        .startsWith("GET /api/history?kernel=stride-copy-fp32&params=size%3D1024%3Bstride%3D4&limit=10");
  }

  /** Devices known only through pushed results, in /api/devices' shape, and history points marked pushed. */
  @Test
  void pushedDevicesAndPushedHistory_readAsTheCoordinatorAnswers() {
    answer("/api/pushes/devices", 200, "application/json", ("[{\"id\":\"lab/cuda:0\",\"agentId\":\"lab\","
        + "\"host\":\"lab\",\"labels\":[],\"model\":\"NVIDIA H100 80GB HBM3\",\"fingerprint\":\"f\","
        + "\"online\":false,\"lastSeen\":\"2026-11-22T01:00:00Z\",\"origin\":\"pushed\"}]")
        .getBytes(StandardCharsets.UTF_8));
    answer("/api/history", 200, "application/json", ("[{\"resultId\":\"" + java.util.UUID.nameUUIDFromBytes(new byte[1])
        + "\",\"deviceId\":\"lab/cuda:0\",\"model\":\"NVIDIA H100 80GB HBM3\",\"measuredAt\":"
        + "\"2026-11-22T01:00:00Z\",\"bandwidth\":1.2E12,\"pushed\":true}]").getBytes(StandardCharsets.UTF_8));

    List<Device> devices = client.pushedDevices();

    assertThat(devices).extracting(Device::id, Device::model, Device::online)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("lab/cuda:0", "NVIDIA H100 80GB HBM3", false));
    assertThat(lastRequest.get()).startsWith("GET /api/pushes/devices");
    assertThat(client.history("k", "p", 1)).extracting(HistoryPoint::pushed).containsExactly(true);
  }
}
