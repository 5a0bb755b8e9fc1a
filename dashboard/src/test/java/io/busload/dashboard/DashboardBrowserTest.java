package io.busload.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import io.busload.coordinator.Coordinator;
import io.busload.coordinator.CoordinatorSettings;
import io.busload.dashboard.cluster.LiveFeed;
import io.busload.dashboard.links.LinkResults;
import io.busload.protocol.Counters;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.KernelResult;
import io.busload.protocol.RunRequest;
import io.busload.protocol.RunStatus;
import io.busload.protocol.cluster.ClusterSettings;
import io.busload.testsupport.LoopbackCluster;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Every view in a real browser against a real coordinator (in-process, embedded PostgreSQL) and agents played on its
 * event bus. The tests run in a random order ({@link SeededRandomOrder} prints the seed), so none may lean on what
 * another did:
 * <ul>
 *   <li>The class shares one application, one coordinator, one Chromium process and a fixture stored once before
 *       any test and only read after: agent-b (host-b, the fleet's only "NVIDIA H200" and its only agent with
 *       labels) and agent-c (host-c, an H100), a week of {@link #seedHistory() history} for both, host-b's
 *       {@link #storeFinishedRun() finished stride run}, and host-c's {@link #storeAbSweeps() A/B sweeps}.</li>
 *   <li>Each test opens a page of its own in the shared browser profile, which is never logged in. A test that needs
 *       an operator logs in itself, in a browser profile of its own that it closes after.</li>
 *   <li>A test that changes what the coordinator holds (starts sweeps, stores results, saves schedules, marks
 *       changes, adds notice targets) does it on agents, hosts, devices and names of its own, which no other test
 *       reads. Their devices are never "NVIDIA H200" and their agents declare no labels (the Schedules test matches
 *       host-b alone by both), and only the notice test's device is an L40S (its target's filter).</li>
 * </ul>
 */
@SpringBootTest(classes = Application.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = "vaadin.productionMode=true")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(SeededRandomOrder.class)
class DashboardBrowserTest {
  private static final LoopbackCluster CLUSTER = new LoopbackCluster("busload-dashboard-views");
  private static final Duration PATIENCE = Duration.ofSeconds(60);
  private static final String PASSWORD = "operator-" + UUID.randomUUID();
  /** The coordinator's tokens file holds only this token's hash; the dashboard and the test's own posts send it. */
  private static final String API_TOKEN = "dashboard-" + UUID.randomUUID();
  static final DeviceInfo H200 = new DeviceInfo("host-b/cuda:0", DeviceInfo.CUDA, "NVIDIA H200", "GPU-b0", "9.0",
      132, 60L << 20, 141L << 30, 3_201_000_000L, 6144, 4.9e12, "580.65");
  static final DeviceInfo H100 = new DeviceInfo("host-c/cuda:0", DeviceInfo.CUDA, "NVIDIA H100 80GB HBM3",
      "GPU-c0", "9.0", 132, 50L << 20, 80L << 30, 2_619_000_000L, 5120, 3.35e12, "580.65");
  static final int LIVE_RESULTS = 40;
  /** The fleet test's two hosts, each running a run of its own sweep. */
  static final DeviceInfo A100 = new DeviceInfo("host-q/cuda:0", DeviceInfo.CUDA, "NVIDIA A100-SXM4-80GB", "GPU-q0",
      "8.0", 108, 40L << 20, 80L << 30, 1_593_000_000L, 5120, 2.039e12, "580.65");
  static final DeviceInfo L4 = new DeviceInfo("host-r/cuda:0", DeviceInfo.CUDA, "NVIDIA L4", "GPU-r0", "8.9", 58,
      48L << 20, 24L << 30, 6_251_000_000L, 192, 300e9, "580.65");
  /** The live test's device: its sweep is the newest when the test starts, so the Live view follows it. */
  static final DeviceInfo B200 = new DeviceInfo("host-l/cuda:0", DeviceInfo.CUDA, "NVIDIA B200", "GPU-l0", "10.0",
      148, 126L << 20, 180L << 30, 3_996_000_000L, 8192, 8.0e12, "580.65");

  private static Coordinator coordinator;
  private static String coordinatorUrl;
  private static Path usersFile;

  @DynamicPropertySource
  static void fleet(DynamicPropertyRegistry registry) throws Exception {
    startCoordinator();
    BrowserFleet.dashboardSettings(registry, CLUSTER, () -> coordinatorUrl);
    registry.add("busload.users-file", () -> usersFile.toString());
    registry.add("busload.api-token", () -> API_TOKEN);
  }

  private static synchronized void startCoordinator() throws Exception {
    if (coordinator != null) {
      return;
    }
    usersFile = Files.createTempFile("busload-users-", ".properties");
    Files.writeString(usersFile, "operator={bcrypt}" + new BCryptPasswordEncoder().encode(PASSWORD) + ",OPERATOR\n");
    Path data = Files.createTempDirectory("busload-coordinator-");
    Files.writeString(data.resolve(CoordinatorSettings.API_TOKENS_FILE_NAME),
        "dashboard:" + io.busload.coordinator.api.ApiTokens.sha256Hex(API_TOKEN) + "\n");
    coordinator = Coordinator.start(new CoordinatorSettings(data, "127.0.0.1", 0,
        CLUSTER.settings(ClusterSettings.COORDINATOR)))
        .await(180, TimeUnit.SECONDS);
    coordinatorUrl = "http://127.0.0.1:" + coordinator.httpPort();
  }

  @LocalServerPort
  int port;

  @Autowired
  LiveFeed feed;

  private Playwright playwright;
  /** The shared browser profile: anonymous, never logged in. */
  private BrowserContext browser;
  /** The profile of a test that logged in ({@link #logIn()}), closed after that test. */
  private BrowserContext operatorBrowser;
  /** This test's own page, opened before it and closed after it. */
  private Page page;
  private FleetDouble agentB;
  private FleetDouble agentC;
  private RunRequest storedRun;
  private final Map<String, Long> loadMillis = new LinkedHashMap<>();
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  void startBrowserAndSeed() throws Exception {
    agentB = new FleetDouble(coordinator.vertx(), "agent-b", "host-b", List.of(H200), List.of("lab-east", "rack=a"));
    agentC = new FleetDouble(coordinator.vertx(), "agent-c", "host-c", List.of(H100));
    seedHistory();
    storedRun = storeFinishedRun();
    storeAbSweeps();
    playwright = Playwright.create(new Playwright.CreateOptions()
        .setEnv(Map.of("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")));
    browser = BrowserFleet.chromium(playwright, 1400, 1000);
    feed.ready().await(PATIENCE.toSeconds(), TimeUnit.SECONDS);
  }

  @BeforeEach
  void openOwnPage() {
    page = browser.newPage();
    page.setDefaultTimeout(PATIENCE.toMillis());
  }

  @AfterEach
  void closeOwnPages() {
    // The blank page the browser started with stays: a persistent context closes with its last page.
    browser.pages().stream().skip(1).forEach(Page::close);
    if (operatorBrowser != null) {
      operatorBrowser.close();
      operatorBrowser = null;
    }
  }

  @AfterAll
  void close() throws Exception {
    System.out.println("view load times (navigate until the chart or table holds its data), ms: " + loadMillis);
    if (browser != null) {
      browser.close();
    }
    if (playwright != null) {
      playwright.close();
    }
    agentB.close();
    agentC.close();
    coordinator.stop().await(30, TimeUnit.SECONDS);
  }

  /**
   * A week of standalone results for both devices: every family's naive and coalesced forms, the memcpy ceiling,
   * and a stride-1 history whose last result, after a driver update, falls 25% (a regression to be marked).
   */
  private void seedHistory() throws Exception {
    Instant start = Instant.now().minus(8, ChronoUnit.DAYS);
    for (DeviceInfo device : List.of(H200, H100)) {
      double scale = device == H200 ? 1.0 : 0.7;
      Map<String, Double> forms = new LinkedHashMap<>();
      forms.put("transpose-naive", 0.45e12);
      forms.put("transpose-tiled", 3.1e12);
      forms.put("particles-aos", 0.6e12);
      forms.put("particles-soa", 3.6e12);
      forms.put("memcpy-d2d", 4.1e12);
      for (var form : forms.entrySet()) {
        agentB.result(result(device, form.getKey(), Map.of("elements", 1 << 24), form.getValue() * scale,
            start.plus(1, ChronoUnit.HOURS), null, null, device.driverVersion()));
      }
      agentB.result(result(device, "stride-copy-fp32", Map.of("elements", 1 << 24, "stride", 32), 0.13e12 * scale,
          start.plus(2, ChronoUnit.HOURS), null, null, device.driverVersion()));
      for (int day = 0; day < 7; day++) {
        boolean updated = device == H200 && day == 6;
        double bandwidth = (updated ? 2.9e12 : 3.9e12 + day * 1e9) * scale;
        agentB.result(result(device, "stride-copy-fp32", Map.of("elements", 1 << 24, "stride", 1), bandwidth,
            start.plus(day, ChronoUnit.DAYS).plus(3, ChronoUnit.HOURS), null, null,
            updated ? "590.10" : device.driverVersion()));
      }
    }
  }

  /**
   * host-b's run of a stride sweep, finished: memcpy, strides 1 to {@link #LIVE_RESULTS}, a result that failed its
   * output check and two profiled ones, then DONE. Its stride 1 is the eighth point of host-b's stride-1 history.
   */
  private RunRequest storeFinishedRun() throws Exception {
    post("/api/sweeps", "{\"suite\":\"stride\",\"devices\":[\"host-b/cuda:0\"]}");
    RunRequest run = agentB.nextRequest();
    agentB.result(result(H200, "memcpy-d2d", Map.of("elements", 1 << 24), 4.2e12, Instant.now(), run.sweepId(),
        run.runId(), H200.driverVersion()));
    for (int stride = 1; stride <= LIVE_RESULTS; stride++) {
      agentB.result(result(H200, "stride-copy-fp32", Map.of("elements", 1 << 24, "stride", stride),
          3.9e12 / Math.min(stride, 32), Instant.now(), run.sweepId(), run.runId(), H200.driverVersion()));
    }
    KernelResult bad = KernelResult.builder().id(UUID.randomUUID()).runId(run.runId())
        .sweepId(run.sweepId()).agentId("agent-b").agentVersion("0.1.0").fatbinHash("fatbin-1").device(H200)
        .suite("stride").kernel("offset-copy-fp32").params(Map.of("offset", 1)).valid(false)
        .mismatches(List.of("out[17]: expected 0.25, got 0.0")).medianSeconds(1e-4).minSeconds(1e-4)
        .maxSeconds(1e-4).relativeSpread(0).samples(List.of(1e-4)).launchesPerSample(20).warmupLaunches(5)
        .bytesRead(1).bytesWritten(1).bytes(2).method("median of 1 sample").measuredAt(Instant.now()).build();
    agentB.result(bad);
    // Two profiled results, through the coordinator's intake, store (result_counters) and REST like any other.
    // Test data, not ncu output: one as modelled, one whose loads take 8 sectors where the model says 5.
    agentB.result(result(H200, "offset-copy-fp32", Map.of("elements", 1 << 24, "offset", 0), 3.8e12, Instant.now(),
        run.sweepId(), run.runId(), H200.driverVersion()).withCounters(new Counters(4.0, 4.0, 4.0, 4.0,
        67.2e6, 67108864.0, 67.15e6, 67108864.0, false, List.of(), List.of("busload_offset_copy_f32"),
        "test data shaped as ncu's")).withSampling(io.busload.protocol.ResultStatus.MEASURED,
            // How it was timed, shown in the results grid from the typed fields (test data).
            new io.busload.protocol.Sampling(9, 0, 1, io.busload.protocol.StopReason.SPREAD_SETTLED,
                new io.busload.protocol.Clocks(io.busload.protocol.Clocks.Reading.READ, "NVML", 1980, 1980, 3201, 3201,
                    0x4L, 2, false), io.busload.protocol.CacheResidency.of(128L << 20, 60L << 20, false))));
    agentB.result(result(H200, "offset-copy-fp32", Map.of("elements", 1 << 24, "offset", 3), 2.6e12,
        Instant.now().plusMillis(1), run.sweepId(), run.runId(), H200.driverVersion())
        .withCounters(new Counters(8.0, 5.0, 4.0, 4.0, 105.3e6, 83886080.0, 67.15e6, 67108864.0, true,
            List.of("loads: 8.00 sectors/request measured, 5.00 modelled",
                "loads: DRAM 1.05e+08 B above the 8.39e+07 B of the modelled sectors"),
            List.of("busload_offset_copy_f32"), "test data shaped as ncu's")));
    int stored = LIVE_RESULTS + 4;
    agentB.status(run, RunStatus.State.DONE, null, stored, stored);
    return run;
  }

  /** Two sweeps of one H100 case, named ab-base and ab-cand, the candidate 10% slower: the Compare view's A/B sides. */
  private void storeAbSweeps() throws Exception {
    Instant at = Instant.now().minus(1, ChronoUnit.HOURS);
    agentC.result(result(H100, "stride-copy-fp32", Map.of("elements", 1 << 24, "stride", 4), 1.0e12, at, "ab-base",
        "ab-base-run", H100.driverVersion()));
    agentC.result(result(H100, "stride-copy-fp32", Map.of("elements", 1 << 24, "stride", 4), 0.9e12,
        at.plusSeconds(60), "ab-cand", "ab-cand-run", H100.driverVersion()));
  }

  static KernelResult result(DeviceInfo device, String kernel, Map<String, Object> params, double bandwidth,
      Instant at, String sweepId, String runId, String driver) {
    DeviceInfo measured = new DeviceInfo(device.id(), device.kind(), device.name(), device.uuid(),
        device.computeCapability(), device.multiprocessors(), device.l2Bytes(), device.memoryBytes(),
        device.memoryClockHz(), device.busWidthBits(), device.theoreticalPeakBytesPerSecond(), driver);
    long bytes = 2L * 4 * (1L << 24);
    double median = bytes / bandwidth;
    List<Double> samples = List.of(median * 0.99, median, median * 1.002, median * 1.01, median * 1.03);
    // From the agent that listed the device (host-c's devices are agent-c's): the coordinator stores an agent's result
    // only for its own device.
    String agentId = "agent-" + device.id().substring("host-".length(), device.id().indexOf('/'));
    return KernelResult.builder().id(UUID.randomUUID()).runId(runId).sweepId(sweepId).agentId(agentId)
        .agentVersion("0.1.0").fatbinHash("fatbin-1").device(measured).suite("stride").kernel(kernel).params(params)
        .valid(true).mismatches(List.of()).medianSeconds(median).minSeconds(median * 0.99).maxSeconds(median * 1.03)
        .relativeSpread(0.04).samples(samples).launchesPerSample(20).warmupLaunches(5).bytesRead(bytes / 2)
        .bytesWritten(bytes / 2).bytes(bytes).bandwidth(bandwidth).method("median of 5 samples of 20 launches")
        .measuredAt(at).build();
  }

  private String url(String path) {
    return "http://127.0.0.1:" + port + "/" + path;
  }

  private String post(String path, String json) throws Exception {
    HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(coordinatorUrl + path))
        .header("Content-Type", "application/json").header("Authorization", "Bearer " + API_TOKEN)
        .POST(HttpRequest.BodyPublishers.ofString(json)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
    return response.body();
  }

  /** Navigates and waits until {@code ready} holds; records how long that took under {@code name}. */
  private void load(String name, String path, String ready) {
    long started = System.nanoTime();
    page.navigate(url(path));
    page.waitForFunction(ready);
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    loadMillis.merge(name, millis, (first, again) -> again);
  }

  private void screenshot(String name) throws Exception {
    page.waitForTimeout(800); // ECharts animates new series in
    Files.createDirectories(Paths.get("target/screenshots"));
    page.screenshot(new Page.ScreenshotOptions().setPath(Paths.get("target/screenshots/" + name + ".png"))
        .setFullPage(true));
  }

  private Object chart(String id, String expression) {
    return page.evaluate("() => { const o = document.querySelector('#" + id + "').option(); return " + expression
        + "; }");
  }

  private static String chartHas(String id, String condition) {
    return "() => { const e = document.querySelector('#" + id + "'); const o = e && e.option && e.option();"
        + " return !!o && !!(" + condition + "); }";
  }

  /**
   * Opens a browser profile of this test's own and logs it in as the operator; {@link #page} is then its page. The
   * shared profile stays anonymous for the tests that must be refused.
   */
  private void logIn() throws Exception {
    operatorBrowser = BrowserFleet.chromium(playwright, 1400, 1000);
    page = operatorBrowser.pages().getFirst();
    page.setDefaultTimeout(PATIENCE.toMillis());
    page.navigate(url("login"));
    page.locator("input[name='username']").fill("operator");
    page.locator("input[name='password']").fill(PASSWORD);
    page.locator("vaadin-button[slot='submit'], vaadin-login-form vaadin-button").first().click();
    page.waitForURL(u -> !u.contains("login"));
  }

  private String cells(String gridId) {
    return String.join(" | ", page.locator("#" + gridId + " vaadin-grid-cell-content").allTextContents());
  }

  @Test
  void fleetView_runningAndQueuedRuns_showHostsFingerprintsProgressAndQueue() throws Exception {
    // Hosts of its own: their runs run and wait only here (no other test reports a run RUNNING, so these are the
    // fleet's only progress bars).
    try (FleetDouble agentQ = new FleetDouble(coordinator.vertx(), "agent-q", "host-q", List.of(A100));
        FleetDouble agentR = new FleetDouble(coordinator.vertx(), "agent-r", "host-r", List.of(L4))) {
      post("/api/sweeps", "{\"suite\":\"stride\",\"devices\":[\"host-q/cuda:0\",\"host-r/cuda:0\"]}");
      RunRequest running = agentQ.nextRequest();
      RunRequest other = agentR.nextRequest();
      agentQ.status(running, RunStatus.State.RUNNING, "stride-copy-fp32", 3, 10);
      agentR.status(other, RunStatus.State.RUNNING, "stride-copy-fp32", 7, 10);
      post("/api/sweeps", "{\"suite\":\"stride\",\"devices\":[\"host-q/cuda:0\"]}");

      load("fleet", "fleet", "() => document.querySelectorAll('#fleet-grid vaadin-progress-bar').length >= 2");
      page.waitForFunction("() => [...document.querySelectorAll('#fleet-grid vaadin-grid-cell-content')]"
          + ".some(c => c.textContent.trim() === '1')");

      String cells = cells("fleet-grid");
      assertThat(cells).contains("host-q", "host-r", "online", "NVIDIA A100-SXM4-80GB", "NVIDIA L4",
          A100.fingerprint(), L4.fingerprint(), "run " + running.runId() + ": stride-copy-fp32 (3/10)");
      assertThat(page.evaluate("() => [...document.querySelectorAll('#fleet-grid vaadin-progress-bar')]"
          + ".map(b => b.value).sort().join(',')")).isEqualTo("0.3,0.7");
      screenshot("fleet");
    }
  }

  @Test
  void liveView_resultsPublishedByAnAgent_appearInTheChartWithin1s() throws Exception {
    // A sweep of its own on a device of its own: the newest sweep, which the Live view shows and follows.
    try (FleetDouble agentL = new FleetDouble(coordinator.vertx(), "agent-l", "host-l", List.of(B200))) {
      post("/api/sweeps", "{\"suite\":\"stride\",\"devices\":[\"host-l/cuda:0\"]}");
      RunRequest run = agentL.nextRequest();
      load("live", "", chartHas("bandwidth-chart", "o.title[0].subtext.startsWith('sweep ')"));
      page.evaluate("""
          () => {
            window.__arrivals = {};
            const el = document.querySelector('#bandwidth-chart');
            const note = () => {
              const now = Date.now();
              for (const s of (el.option().series || [])) {
                if (s.id === 'host-l/cuda:0|stride-copy-fp32') {
                  for (const p of s.data) { if (!(p[0] in window.__arrivals)) window.__arrivals[p[0]] = now; }
                }
              }
            };
            const setOption = el.setOption.bind(el);
            el.setOption = (json) => { setOption(json); note(); };
            const appendPoint = el.appendPoint.bind(el);
            el.appendPoint = (id, x, y) => { appendPoint(id, x, y); note(); };
          }""");
      List<Long> sent = new ArrayList<>();
      agentL.result(result(B200, "memcpy-d2d", Map.of("elements", 1 << 24), 4.2e12, Instant.now(),
          run.sweepId(), run.runId(), B200.driverVersion()));
      for (int stride = 1; stride <= LIVE_RESULTS; stride++) {
        KernelResult r = result(B200, "stride-copy-fp32", Map.of("elements", 1 << 24, "stride", stride),
            3.9e12 / Math.min(stride, 32), Instant.now(), run.sweepId(), run.runId(), B200.driverVersion());
        sent.add(System.currentTimeMillis());
        agentL.result(r);
        final int expected = stride;
        page.waitForFunction("() => window.__arrivals[" + expected + "] !== undefined");
        Thread.sleep(50);
      }
      List<Long> latencies = new ArrayList<>();
      for (int stride = 1; stride <= LIVE_RESULTS; stride++) {
        long arrived = ((Number) page.evaluate("() => window.__arrivals[" + stride + "]")).longValue();
        latencies.add(arrived - sent.get(stride - 1));
      }
      List<Long> sorted = latencies.stream().sorted().toList();
      long p50 = sorted.get(sorted.size() / 2);
      long p95 = sorted.get((int) Math.ceil(sorted.size() * 0.95) - 1);
      System.out.println("push latency, agent's result request to the point in the browser's chart, "
          + LIVE_RESULTS + " results: p50 " + p50 + " ms, p95 " + p95 + " ms, max " + sorted.getLast() + " ms");
      // Timed, not asserted: how fast depends on the machine. Each result was waited for above, one at a time.

      assertThat(chart("bandwidth-chart",
          "o.series.find(s => s.id === 'host-l/cuda:0|stride-copy-fp32').data.length")).isEqualTo(LIVE_RESULTS);
      assertThat(chart("bandwidth-chart", "JSON.stringify(o.series.find(s => s.id === "
          + "'host-l/cuda:0|stride-copy-fp32').data[7])")).isEqualTo("[8,487.5]");
      assertThat(chart("bandwidth-chart", "o.series.map(s => s.id).join(',')")).asString()
          .contains("host-l/cuda:0|stride-copy-fp32#band", "ceiling|memcpy|host-l/cuda:0",
              "ceiling|peak|host-l/cuda:0");
      assertThat(chart("bandwidth-chart",
          "o.series.find(s => s.id === 'ceiling|memcpy|host-l/cuda:0').data[0][1]")).isEqualTo(4200);
      assertThat(chart("bandwidth-chart",
          "o.series.find(s => s.id === 'ceiling|peak|host-l/cuda:0').data.map(p => p[0]).join(',')"))
          .as("both ceilings span every stride drawn").isEqualTo("1," + LIVE_RESULTS);
      assertThat(chart("bandwidth-chart",
          "o.xAxis[0].name + '|' + o.yAxis[0].name + '|' + o.tooltip[0].formatter")).asString()
          .contains("stride (elements)", "GB/s", "{@[1]} GB/s");
      screenshot("live");
    }
  }

  @Test
  void liveView_startSweepWithoutLogin_isRefused() {
    load("live", "", chartHas("bandwidth-chart", "o.title[0].subtext.startsWith('sweep ')"));
    page.locator("#start-sweep").click();
    page.waitForFunction("() => document.querySelector('#coordinator-notice')?.textContent.includes('refused')");
    assertThat(page.locator("#coordinator-notice").textContent()).contains("log in to start a sweep");
  }

  @Test
  void compareView_twoDevices_groupedBarsPerFamilyAndPublishedFiguresLabelled() throws Exception {
    load("compare", "compare", chartHas("compare-chart", "o.series && o.series.length >= 6"));
    String names = (String) chart("compare-chart", "o.series.map(s => s.name).join(',')");
    assertThat(names).contains("device: host-b/cuda:0 naive", "device: host-b/cuda:0 coalesced",
        "device: host-b/cuda:0 best", "device: host-c/cuda:0 best").doesNotContain("published");
    assertThat(chart("compare-chart", "o.xAxis[0].data.join(',')")).asString()
        .contains("particles", "stride-copy", "transpose");
    int transpose = ((List<?>) chart("compare-chart", "o.xAxis[0].data")).indexOf("transpose");
    assertThat(chart("compare-chart", "o.series.find(s => s.name === 'device: host-b/cuda:0 coalesced').data["
        + transpose + "]")).isEqualTo(3100);
    assertThat(chart("compare-chart", "o.series.find(s => s.name === 'device: host-c/cuda:0 naive').data["
        + transpose + "]")).isEqualTo(315);

    page.locator("#compare-scale vaadin-radio-button").nth(2).click();
    page.waitForFunction(chartHas("compare-chart", "o.yAxis[0].name.includes('theoretical peak')"));
    assertThat(chart("compare-chart", "o.series.find(s => s.name === 'device: host-b/cuda:0 coalesced').data["
        + transpose + "]")).isEqualTo(63.27);

    page.locator("#compare-scale vaadin-radio-button").nth(0).click();
    page.locator("#compare-published").click();
    page.waitForFunction(chartHas("compare-chart", "o.series.some(s => s.name.startsWith('published: '))"));
    assertThat(chart("compare-chart", "o.series.filter(s => s.name.startsWith('published: ')).map(s => s.name)"
        + ".join(',')")).asString().contains("published: A100-80GB SXM4 naive (seed coalescing-patterns-a100.txt)");
    assertThat(cells("published-grid")).contains("published", "seed coalescing-patterns-a100.txt",
        "public BabelStream results (Azure ND H200 v5)");
    screenshot("compare");
  }

  @Test
  void historyView_strideOneHistory_linePerDeviceWithTheRegressionAndItsDriverChange() throws Exception {
    load("history", "history?kernel=stride-copy-fp32&params=elements%3D16777216%3Bstride%3D1",
        chartHas("history-chart", "o.series && o.series.length >= 3 && o.title[0].subtext"
            + " === 'elements=16777216;stride=1' && o.series.find(s => s.id === 'regressions').data.length > 0"));

    // seven seeded days, then the finished run's stride 1 of the same parameters
    assertThat(chart("history-chart", "o.series.find(s => s.id === 'host-b/cuda:0').data.length")).isEqualTo(8);
    assertThat(chart("history-chart", "o.series.find(s => s.id === 'host-c/cuda:0').data.length")).isEqualTo(7);
    String regression = (String) chart("history-chart", "o.series.find(s => s.id === 'regressions').data[0].name");
    assertThat(regression).contains("host-b/cuda:0", "regression", "driverVersion 580.65 -> 590.10");
    assertThat(chart("history-chart", "o.xAxis[0].type + '|' + o.xAxis[0].name + '|' + o.yAxis[0].name"))
        .asString().contains("time|measured at (UTC)|bandwidth (GB/s");
    assertThat(cells("changes-grid")).contains("REGRESSION", "driverVersion 580.65 -> 590.10");
    screenshot("history");
  }

  @Test
  void runView_finishedRun_boxPlotPerKernelValidityMismatchesFingerprintExportAndCounters() throws Exception {
    // host-b's finished run from the fixture: memcpy, the strides, the invalid result and the two profiled ones.
    load("run", "runs/" + storedRun.runId(), "() => (" + chartHas("samples-chart", "o.series[0].data.length >= "
        + LIVE_RESULTS) + ")() && (" + chartHas("counters-chart", "o.series[0].data.length === 2") + ")()");

    assertThat(chart("samples-chart", "o.series[0].type")).isEqualTo("boxplot");
    assertThat(chart("samples-chart", "o.xAxis[0].data.length")).isEqualTo(LIVE_RESULTS + 3);
    String box = (String) chart("samples-chart", "JSON.stringify(o.series[0].data[o.xAxis[0].data.indexOf("
        + "'stride-copy-fp32 elements=16777216;stride=1')])");
    assertThat(box).isEqualTo("[3786.408,3861.386,3892.216,3900,3939.394]");
    String cells = cells("results-grid");
    assertThat(cells).contains("INVALID", "out[17]: expected 0.25, got 0.0", "valid", "3900.0 GB/s");
    assertThat(cells).contains("9 held, 0 unheld, 1 re-timed after a hold timed out; stopped: spread settled",
        "throttle reasons 0x4 (sw power cap); 2 throttled samples dropped",
        "CACHE-RESIDENT, under 4x L2 (128.0 MiB working set, L2 60.0 MiB)", "MEASURED");
    assertThat(cells("fingerprint-grid")).contains(H200.fingerprint(), "GPU-b0", "580.65", "fatbin-1");

    var download = page.waitForDownload(() -> page.locator("#export-csv").click());
    String csv = Files.readString(download.path());
    assertThat(csv.lines().findFirst().orElseThrow()).startsWith("id,sweepId,runId,measuredAt,deviceId");
    // header, memcpy, strides, the invalid one, the two profiled ones
    assertThat(csv.lines().count()).isEqualTo(LIVE_RESULTS + 5);
    var json = page.waitForDownload(() -> page.locator("#export-json").click());
    assertThat(Files.readString(json.path())).startsWith("[").contains("out[17]: expected 0.25, got 0.0")
        .contains("\"counters\":{\"loadSectorsPerRequest\":8.0,\"modelLoadSectorsPerRequest\":5.0");

    assertThat(chart("counters-chart", "o.xAxis[0].data.join(',')")).isEqualTo(
        "offset-copy-fp32 elements=16777216;offset=0,FLAG offset-copy-fp32 elements=16777216;offset=3");
    assertThat(chart("counters-chart", "JSON.stringify(o.series.map(s => s.data))"))
        .isEqualTo("[[4,8],[4,5],[4,4],[4,4]]");
    String counters = cells("counters-grid");
    assertThat(counters).contains("offset-copy-fp32 elements=16777216;offset=0 | 4.00 / 4.00 | 4.00 / 4.00 | "
        + "67.20 / 67.11\u201367.11 | 67.15 / 67.11\u201367.11 | within 10% of the model",
        "offset-copy-fp32 elements=16777216;offset=3 | 8.00 / 5.00 | 4.00 / 4.00 | 105.30 / 67.11\u201383.89",
        "FLAG, beyond 10%: loads: 8.00 sectors/request measured, 5.00 modelled; loads: DRAM 1.05e+08 B above");
    assertThat(page.locator("#counters-grid span[flagged]").allTextContents()).singleElement().asString()
        .startsWith("FLAG, beyond 10%");
    assertThat(cells("results-grid")).contains("FLAG vs model", "as modelled");
    screenshot("run");
  }

  @Test
  void schedulesView_withoutLogin_saveIsRefused() {
    load("schedules", "schedules", "() => !!document.querySelector('#schedule-save')");
    page.locator("#schedule-save").click();
    page.waitForFunction("() => document.querySelector('#schedule-message')?.textContent.includes('refused')");
    assertThat(page.locator("#schedule-message").textContent()).isEqualTo("refused: log in to save the schedule");
  }

  @Test
  void schedulesView_loggedIn_badCronRefusedAsTypedThenScheduleCreatedPausedAndDeleted() throws Exception {
    logIn();
    page.navigate(url("schedules"));
    page.waitForSelector("#user-name");

    page.locator("#schedule-cron input").fill("61 3 * * *");
    page.waitForFunction("() => document.querySelector('#schedule-cron').hasAttribute('invalid')");
    assertThat(page.locator("#schedule-cron [slot='error-message']").textContent()).isNotBlank();
    assertThat(page.locator("#schedule-next-fires").textContent()).isEmpty();
    page.locator("#schedule-save").click();
    page.waitForFunction("() => document.querySelector('#schedule-message').textContent.includes('refused (400)')");
    assertThat(page.locator("#schedule-message").textContent()).contains("cron");

    page.locator("#schedule-name input").fill("nightly H200");
    page.locator("#schedule-cron input").fill("30 2 * * 1-5");
    page.waitForFunction("() => document.querySelector('#schedule-next-fires').textContent.startsWith('Next fires')");
    assertThat(page.locator("#schedule-next-fires").textContent().split(" · ")).hasSize(5);
    page.locator("#schedule-target-kind").click();
    page.locator("vaadin-select-item", new Page.LocatorOptions().setHasText("model")).click();
    page.locator("#schedule-target-value input").fill("NVIDIA H200");
    page.locator("#schedule-target-value input").press("Enter");
    page.waitForFunction("() => document.querySelector('#schedule-target-preview').textContent"
        + ".includes('host-b/cuda:0')");
    assertThat(page.locator("#schedule-target-preview").textContent()).isEqualTo("Matches 1 device(s): host-b/cuda:0");
    // By host label (BUSLOAD_LABELS): the form offers the labels agents declared, whole labels only.
    page.locator("#schedule-target-kind").click();
    page.locator("vaadin-select-item", new Page.LocatorOptions().setHasText("label")).click();
    page.locator("#schedule-target-value input").fill("lab");
    page.locator("#schedule-target-value input").press("Enter");
    page.waitForFunction("() => document.querySelector('#schedule-target-preview').textContent"
        + " === 'Matches no known device'");
    // The labels offered are those the agents declared: pick one from the list.
    page.locator("#schedule-target-value input").fill("");
    page.locator("#schedule-target-value input").press("ArrowDown");
    page.locator("vaadin-combo-box-item", new Page.LocatorOptions().setHasText("rack=a")).waitFor();
    // The items shown: the list keeps as many item elements as the longest list it showed (the fleet's models, when
    // other tests added some), hiding the spare ones.
    assertThat(page.locator("vaadin-combo-box-item:visible").allTextContents()).containsExactly("lab-east", "rack=a");
    page.locator("vaadin-combo-box-item", new Page.LocatorOptions().setHasText("lab-east")).click();
    page.waitForFunction("() => document.querySelector('#schedule-target-preview').textContent"
        + ".includes('host-b/cuda:0')");
    assertThat(page.locator("#schedule-target-preview").textContent()).isEqualTo("Matches 1 device(s): host-b/cuda:0");
    page.locator("#schedule-save").click();
    page.waitForFunction("() => document.querySelector('#schedule-message').textContent.startsWith('Saved')");
    page.waitForFunction("() => [...document.querySelectorAll('#schedules-grid vaadin-grid-cell-content')]"
        + ".some(c => c.textContent === 'nightly H200')");
    assertThat(cells("schedules-grid")).contains("30 2 * * 1-5", "label = lab-east", "active");
    HttpResponse<String> labelled = http.send(HttpRequest.newBuilder(URI.create(coordinatorUrl + "/api/schedules"))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(labelled.body()).containsIgnoringCase("\"kind\":\"label\"").contains("\"value\":\"lab-east\"");
    screenshot("schedules");

    page.locator("#schedules-grid vaadin-grid-cell-content", new Page.LocatorOptions().setHasText("nightly H200"))
        .click();
    page.locator("#schedule-pause").click();
    page.waitForFunction("() => document.querySelector('#schedule-message').textContent.startsWith('Paused')");
    assertThat(cells("schedules-grid")).contains("paused");
    page.locator("#schedules-grid vaadin-grid-cell-content", new Page.LocatorOptions().setHasText("nightly H200"))
        .click();
    page.locator("#schedule-delete").click();
    page.waitForFunction("() => document.querySelector('#schedule-message').textContent === 'Deleted'");
    HttpResponse<String> stored = http.send(HttpRequest.newBuilder(URI.create(coordinatorUrl + "/api/schedules"))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(stored.body()).doesNotContain("nightly H200");
  }

  @Test
  void everyView_loadedAgain_showsItsData() {
    load("live", "", chartHas("bandwidth-chart", "o.title[0].subtext.startsWith('sweep ')"));
    load("fleet", "fleet", "() => document.querySelectorAll('#fleet-grid vaadin-grid-cell-content').length > 10");
    load("compare", "compare", chartHas("compare-chart", "o.series && o.series.length >= 6"));
    load("history", "history", chartHas("history-chart", "o.series && o.series.length >= 1"));
    load("run", "runs/" + storedRun.runId(), chartHas("samples-chart", "o.series[0].data.length > 0"));
    load("schedules", "schedules", "() => !!document.querySelector('#schedules-grid')");
    // Each load fails unless its chart or table holds its data. The times are printed, not asserted: ViewLoadBench
    // measures them against the 2 s target with a year of results stored (a timed unit test judges the machine).
  }

  // ---- links that reproduce a chart, exports, annotations, cohort marks

  /** Clicks what {@code click} clicks and returns the downloaded file's name and bytes. */
  private Map.Entry<String, byte[]> download(Runnable click) throws Exception {
    com.microsoft.playwright.Download download = page.waitForDownload(click);
    return Map.entry(download.suggestedFilename(), Files.readAllBytes(download.path()));
  }

  @Test
  void historyView_linkAndAnnotations_theCopiedAddressDrawsTheSameChartWithChangePointAndAcceptedMark()
      throws Exception {
    // Two weeks of a new kernel case on an H100 of its own whose level drops 8% after day 8, and a mark accepting a
    // change: its marks land on its own device's history only.
    DeviceInfo h100 = new DeviceInfo("host-h/cuda:0", DeviceInfo.CUDA, H100.name(), "GPU-h0", "9.0", 132, 50L << 20,
        80L << 30, 2_619_000_000L, 5120, 3.35e12, "580.65");
    try (FleetDouble agentH = new FleetDouble(coordinator.vertx(), "agent-h", "host-h", List.of(h100))) {
      logIn();
      Instant start = Instant.now().minus(20, ChronoUnit.DAYS);
      for (int day = 0; day < 16; day++) {
        double bandwidth = (day < 8 ? 2.0e12 : 1.84e12) * (1 + 0.001 * (day % 3 - 1));
        agentH.result(result(h100, "offset-copy-fp32", Map.of("elements", 1 << 24, "offset", 1), bandwidth,
            start.plus(day, ChronoUnit.DAYS), null, null, h100.driverVersion()));
      }
      post("/api/accepted-changes", "{\"device\":\"" + h100.id() + "\",\"kernel\":\"offset-copy-fp32\",\"from\":\""
          + start.plus(14, ChronoUnit.DAYS).plus(1, ChronoUnit.HOURS)
          + "\",\"why\":\"new driver, new level expected\"}");

      load("history", "history", chartHas("history-chart", "o.series && o.series.length >= 1"));
      page.locator("#history-kernel input").fill("offset=1");
      page.locator("vaadin-combo-box-item", new Page.LocatorOptions().setHasText("offset-copy-fp32  elements=16777216;"
          + "offset=1")).click();
      page.waitForFunction(chartHas("history-chart", "o.title[0].text.endsWith('offset-copy-fp32')"));
      page.waitForFunction("() => location.search.includes('kernel=offset-copy-fp32')");
      String link = page.url();
      assertThat(link).contains("params=elements%3D16777216%3Boffset%3D1");
      Object marks = chart("history-chart", "o.series.find(s => s.id === '" + h100.id() + "').markLine.data"
          + ".map(d => d.name).join(' | ')");
      assertThat(marks).asString().contains("change point -8.0% (2000.0 → 1840.0 GB/s)")
          .contains("accepted by dashboard: new driver, new level expected");

      Page other = page.context().newPage();
      try {
        other.navigate(link);
        other.waitForFunction(chartHas("history-chart", "o.title[0].text.endsWith('offset-copy-fp32')"));
        assertThat(other.evaluate("() => document.querySelector('#history-chart').option().series.map(s => s.id "
            + "+ ':' + (s.data || []).length).join(',')"))
            .isEqualTo(chart("history-chart", "o.series.map(s => s.id + ':' + (s.data || []).length).join(',')"));
        assertThat(other.evaluate("() => document.querySelector('#history-kernel input').value")).asString()
            .isEqualTo("offset-copy-fp32  elements=16777216;offset=1");
      } finally {
        other.close();
      }

      // Through the dashboard (logged in above): without a reason the mark is refused, naming why.
      page.locator("#accept-why input").fill("");
      page.locator("#accept-change").click();
      page.waitForFunction("() => document.querySelector('#accept-message').textContent.includes('why')");
      page.locator("#accept-why input").fill("card replaced");
      page.locator("#accept-change").click();
      page.waitForFunction("() => document.querySelector('#accept-message').textContent"
          + ".startsWith('Accepted by operator via dashboard')");
      page.waitForFunction(chartHas("history-chart", "o.series.some(s => s.markLine && s.markLine.data.some("
          + "d => d.name === 'accepted by operator via dashboard: card replaced'))"));
      screenshot("history-annotations");
    }
  }

  @Test
  void compareView_linkWithSubjectsScaleAndAbSides_reopensTheSameChartAndVerdicts() throws Exception {
    // The A/B sides are the fixture's sweeps ab-base and ab-cand.
    load("compare", "compare", chartHas("compare-chart", "o.series && o.series.length >= 6"));
    page.locator("#compare-scale vaadin-radio-button").nth(2).click();
    page.waitForFunction("() => location.search.includes('scale=FRACTION_OF_PEAK')");
    page.locator("#ab-baseline input").fill("sweep:ab-base");
    page.keyboard().press("Enter");
    page.locator("#ab-candidate input").fill("sweep:ab-cand");
    page.keyboard().press("Enter");
    page.waitForFunction("() => location.search.includes('candidate=sweep%3Aab-cand')");
    page.waitForFunction("() => document.querySelector('#ab-summary').textContent.includes('1 SLOWER')");
    assertThat(cells("verdicts-grid")).contains("stride-copy-fp32", "elements=16777216;stride=4", "SLOWER",
        "-10.00% (");
    String link = page.url();
    assertThat(link).contains("subject=device%3A%20host-b%2Fcuda%3A0", "subject=device%3A%20host-c%2Fcuda%3A0",
        "baseline=sweep%3Aab-base");

    Page other = browser.newPage();
    try {
      other.navigate(link);
      other.waitForFunction(chartHas("compare-chart", "o.yAxis[0].name.includes('theoretical peak')"));
      other.waitForFunction("() => document.querySelector('#ab-summary').textContent.includes('1 SLOWER')");
      String series = "o.series.map(s => s.name + '=' + s.data.join('/')).join(',')";
      assertThat(other.evaluate("() => { const o = document.querySelector('#compare-chart').option(); return "
          + series + "; }")).isEqualTo(chart("compare-chart", series));
    } finally {
      other.close();
    }
  }

  @Test
  void charts_toolbox_pngAndSvgDownloads() throws Exception {
    load("compare", "compare?scale=FRACTION_OF_PEAK",
        chartHas("compare-chart", "o.yAxis[0].name.includes('theoretical peak')"));
    assertThat(chart("compare-chart", "Object.keys(o.toolbox[0].feature).join(',')")).isEqualTo("myPng,mySvg");
    // Each toolbox button calls exportImage: what the test calls here.
    assertThat(chart("compare-chart", "typeof o.toolbox[0].feature.myPng.onclick + typeof "
        + "o.toolbox[0].feature.mySvg.onclick")).isEqualTo("functionfunction");
    Map.Entry<String, byte[]> png = download(() -> page.evaluate(
        "() => document.querySelector('#compare-chart').exportImage('png')"));
    assertThat(png.getKey()).isEqualTo("compare-chart.png");
    assertThat(png.getValue()).startsWith(0x89, 'P', 'N', 'G');
    Map.Entry<String, byte[]> svg = download(() -> page.evaluate(
        "() => document.querySelector('#compare-chart').exportImage('svg')"));
    assertThat(svg.getKey()).isEqualTo("compare-chart.svg");
    String text = new String(svg.getValue(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(text).startsWith("<svg").contains("theoretical peak");
  }

  @Test
  void tables_exportCsv_theRowsShownWithTheirHeaders() throws Exception {
    load("compare", "compare?baseline=sweep%3Aab-base&candidate=sweep%3Aab-cand",
        "() => document.querySelector('#ab-summary')?.textContent.includes('1 SLOWER')");
    Map.Entry<String, byte[]> verdicts = download(() -> page.locator("#verdicts-grid-csv").click());
    assertThat(verdicts.getKey()).isEqualTo("verdicts.csv");
    String csv = new String(verdicts.getValue(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(csv.replace("\"", "")).startsWith("Kernel,Params,Baseline GB/s,Candidate GB/s,Shift (95% interval),"
        + "Verdict,Notes\r\n").contains("stride-copy-fp32,elements=16777216;stride=4,").contains(",SLOWER,");

    load("history", "history?kernel=stride-copy-fp32&params=elements%3D16777216%3Bstride%3D1",
        chartHas("history-chart", "o.series.find(s => s.id === 'regressions').data.length > 0"));
    String regressions = new String(download(() -> page.locator("#changes-grid-csv").click()).getValue(),
        java.nio.charset.StandardCharsets.UTF_8);
    assertThat(regressions.replace("\"", "").lines().findFirst())
        .hasValue("Measured at,Kind,Device,Bandwidth,Change,Environment change");
    assertThat(regressions).contains("REGRESSION,host-b/cuda:0").contains("driverVersion 580.65 -> 590.10");
  }

  @Test
  void fleetAndCompare_oneOfFiveH100sTenPercentSlow_markedInWords() throws Exception {
    List<DeviceInfo> cards = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      cards.add(new DeviceInfo("host-d/cuda:" + i, DeviceInfo.CUDA, H100.name(), "GPU-d" + i, "9.0", 132, 50L << 20,
          80L << 30, 2_619_000_000L, 5120, 3.35e12, "580.65"));
    }
    try (FleetDouble agentD = new FleetDouble(coordinator.vertx(), "agent-d", "host-d", cards)) {
      Instant at = Instant.now().minus(10, ChronoUnit.MINUTES);
      for (int i = 0; i < cards.size(); i++) {
        double bandwidth = (i == 3 ? 1.8e12 : 2.0e12) * (1 + 0.002 * i);
        agentD.result(result(cards.get(i), "vector-copy-float4", Map.of("elements", 1 << 24), bandwidth, at, null,
            null, "580.65"));
      }
      load("fleet", "fleet", "() => [...document.querySelectorAll('#fleet-grid vaadin-grid-cell-content')]"
          + ".some(c => c.textContent.includes('\u26a0'))");
      // 1.81 against the others' median of 2.006 TB/s; the seeded method states no clocks.
      assertThat(cells("fleet-grid")).contains("\u26a0 this H100 is 9.7% below its 4 peers on "
          + "vector-copy-float4 (elements=16777216), clocks not recorded");
      // A hand-written link may name a device without the picker's "device: " prefix.
      load("compare", "compare?subject=host-d%2Fcuda%3A3",
          "() => document.querySelectorAll('#cohort-flags-grid vaadin-grid-cell-content').length > 4");
      assertThat(cells("cohort-flags-grid")).contains("host-d/cuda:3", "below its 4 peers on vector-copy-float4");
      screenshot("fleet-cohort");
    }
  }

  /**
   * The link views. host-cpu's results are real: the interconnect suite measured on the build machine's CPU
   * (host memory copies between threads; src/test/resources/links/interconnect-cpu.json, from InterconnectCliTest),
   * re-addressed to this test's run. host-m's three GPUs are test data (io.busload.dashboard.links.LinksTest): 0 and 1
   * joined, 2 without peer access, a PCIe gen5 x16 link in the fingerprint.
   */
  @Test
  void linkViews_cpuRunCurvesAndNoPair_threeGpuHeatmapWithNoPeerAccess_inRunDetailAndCompare() throws Exception {
    List<KernelResult> measured = io.busload.protocol.JsonCodec.MAPPER.readValue(
        DashboardBrowserTest.class.getResourceAsStream("/links/interconnect-cpu.json"),
        new com.fasterxml.jackson.core.type.TypeReference<List<KernelResult>>() {});
    DeviceInfo m = measured.getFirst().device();
    DeviceInfo cpu = new DeviceInfo("host-cpu/cpu", m.kind(), m.name(), m.uuid(), m.computeCapability(),
        m.multiprocessors(), m.l2Bytes(), m.memoryBytes(), m.memoryClockHz(), m.busWidthBits(),
        m.theoreticalPeakBytesPerSecond(), m.driverVersion());
    List<DeviceInfo> gpus = List.of(LinkResults.gpu("host-m", 0), LinkResults.gpu("host-m", 1),
        LinkResults.gpu("host-m", 2));
    try (FleetDouble agentCpu = new FleetDouble(coordinator.vertx(), "agent-cpu", "host-cpu", List.of(cpu));
        FleetDouble agentM = new FleetDouble(coordinator.vertx(), "agent-m", "host-m", gpus)) {
      post("/api/sweeps", "{\"suite\":\"interconnect\",\"devices\":[\"host-cpu/cpu\",\"host-m/cuda:0\","
          + "\"host-m/cuda:1\",\"host-m/cuda:2\"]}");
      RunRequest cpuRun = agentCpu.nextRequest();
      Map<String, RunRequest> gpuRuns = new LinkedHashMap<>();
      for (int i = 0; i < 3; i++) {
        RunRequest r = agentM.nextRequest();
        gpuRuns.put(r.deviceId(), r);
      }
      for (KernelResult r : measured) {
        agentCpu.result(readdressed(r, cpuRun, "agent-cpu", cpu, r.measuredAt()));
      }
      for (KernelResult r : LinkResults.matrix("host-m")) {
        agentM.result(readdressed(r, gpuRuns.get(r.device().id()), "agent-m", r.device(), Instant.now()));
      }

      long hostKernels = measured.stream().filter(r -> r.valid() && !r.kernel().startsWith("p2p-")
          && !r.kernel().equals("memcpy-d2d")).map(KernelResult::kernel).distinct().count();
      load("run-links-cpu", "runs/" + cpuRun.runId(), chartHas("links-curves-host-cpu",
          "o.series.length === " + hostKernels));
      assertThat(hostKernels).isEqualTo(9);
      assertThat(chart("links-curves-host-cpu", "o.series.find(s => s.name === 'h2d-ce-pinned').data.length"))
          .isEqualTo(3);
      assertThat(chart("links-curves-host-cpu", "o.xAxis[0].type + '|' + o.title[0].subtext")).asString()
          .startsWith("log|").contains("no link rate line");
      assertThat(page.locator("#links-no-matrix-host-cpu").textContent())
          .isEqualTo("GPU x GPU matrix: no GPU pair on this host: cpu is its only cpu device");
      screenshot("run-links-cpu");

      load("run-links-gpu", "runs/" + gpuRuns.get("host-m/cuda:0").runId(),
          chartHas("links-heatmap-host-m-p2p-ce-write", "o.series[0].data.length === 6"));
      assertThat(chart("links-heatmap-host-m-p2p-ce-write", "o.series[0].type + '|' + o.yAxis[0].data.join(',')"))
          .isEqualTo("heatmap|cuda:0,cuda:1,cuda:2");
      assertThat(chart("links-heatmap-host-m-p2p-ce-write", "o.series[0].data.filter(d => d.label && "
          + "d.label.formatter === 'no peer access').length")).isEqualTo(4);
      assertThat(chart("links-heatmap-host-m-p2p-ce-write", "JSON.stringify(o.series[0].data.find(d => "
          + "d.value[0] === 1 && d.value[1] === 0).value)")).isEqualTo("[1,0,120]");
      assertThat(page.locator("#links-heatmap-host-m-p2p-ce-write canvas").count()).isPositive();
      assertThat(cells("fingerprint-grid")).contains("PCIe gen5 x16, 63.015 GB/s each way; at discovery gen1 x16");
      screenshot("run-links-gpu");

      load("compare-links", "compare?subject=device%3A%20host-m%2Fcuda%3A0&subject=device%3A%20host-m%2Fcuda%3A1",
          chartHas("links-heatmap-host-m-p2p-ce-write", "o.series[0].data.length === 4"));
      assertThat(chart("links-heatmap-host-m-p2p-ce-write", "o.series[0].data.map(d => d.name).sort().join(';')"))
          .isEqualTo("cuda:0 \u2192 cuda:1: 120.0 GB/s;cuda:0 \u2192 cuda:2: no peer access;"
              + "cuda:1 \u2192 cuda:0: 121.0 GB/s;cuda:1 \u2192 cuda:2: no peer access");
      screenshot("compare-links");

      // History keeps each link's series: one pair at one size, a line per GPU that measured it.
      load("history-link", "history?kernel=p2p-ce-write&params=bytes%3D268435456%3Bpeer%3D0%3Bsize%3D268435456",
          chartHas("history-chart", "o.series.some(s => s.id === 'host-m/cuda:1')"));
      assertThat(chart("history-chart", "JSON.stringify(o.series.find(s => s.id === 'host-m/cuda:1').data.map(p => "
          + "p[1]))")).isEqualTo("[121]");
    }
  }

  /**
   * The link a notice carries opens the right view: a step of -5% in an L40S's stride-2 history makes the coordinator
   * send one change-point notice to a webhook served here, with the dashboard's address set as the notices' base;
   * the browser opens the notice's own link and lands on that kernel's History with the change point marked.
   */
  @Test
  void notificationLink_stepInADevicesHistory_theNoticesLinkOpensItsHistoryWithTheChangePoint() throws Exception {
    DeviceInfo l40s = new DeviceInfo("host-n/cuda:0", DeviceInfo.CUDA, "NVIDIA L40S", "GPU-n0", "8.9", 142, 96L << 20,
        48L << 30, 2_250_000_000L, 384, 864e9, "580.65");
    List<String> bodies = new java.util.concurrent.CopyOnWriteArrayList<>();
    com.sun.net.httpserver.HttpServer hook = com.sun.net.httpserver.HttpServer.create(
        new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
    hook.createContext("/hook", exchange -> {
      try (var in = exchange.getRequestBody()) {
        bodies.add(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
      }
      exchange.sendResponseHeaders(200, -1);
      exchange.close();
    });
    hook.start();
    try (FleetDouble agentN = new FleetDouble(coordinator.vertx(), "agent-n", "host-n", List.of(l40s))) {
      send("PUT", "/api/notifications/settings", "{\"dashboardUrl\":\"" + url("") + "\"}", 200);
      send("POST", "/api/notifications/targets", "{\"name\":\"l40s hook\",\"kind\":\"webhook\",\"secrets\":"
          + "{\"url\":\"http://127.0.0.1:" + hook.getAddress().getPort() + "/hook\",\"key\":\"k3y-0f-the-hook-4411\"},"
          + "\"filter\":{\"events\":[\"change-point\"],\"models\":[\"L40S\"]}}", 201);
      Instant start = Instant.now().minus(40, ChronoUnit.HOURS);
      for (int i = 0; i < 30; i++) {
        agentN.result(result(l40s, "stride-copy-fp32", Map.of("elements", 1 << 24, "stride", 2),
            (i < 20 ? 0.60e12 : 0.57e12), start.plus(i, ChronoUnit.HOURS), null, null, l40s.driverVersion()));
      }
      long until = System.nanoTime() + PATIENCE.toNanos();
      while (bodies.isEmpty()) {
        assertThat(System.nanoTime()).as("a change-point notice within " + PATIENCE).isLessThan(until);
        Thread.sleep(200);
      }
      Thread.sleep(2000);
      assertThat(bodies).as("one notice for one step").hasSize(1);
      String link = io.busload.protocol.JsonCodec.MAPPER.readTree(bodies.getFirst()).get("link").asText();
      assertThat(link).startsWith(url("history?"));

      long started = System.nanoTime();
      page.navigate(link);
      page.waitForFunction(chartHas("history-chart", "o.series.some(s => s.id === 'host-n/cuda:0')"
          + " && o.series.find(s => s.id === 'host-n/cuda:0').markLine"));
      loadMillis.put("history-from-notice", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
      assertThat(chart("history-chart", "o.title[0].text + '|' + o.title[0].subtext")).asString()
          .contains("stride-copy-fp32").endsWith("|elements=16777216;stride=2");
      assertThat(chart("history-chart", "o.series.find(s => s.id === 'host-n/cuda:0').data.length")).isEqualTo(30);
      assertThat(chart("history-chart", "o.series.find(s => s.id === 'host-n/cuda:0').markLine.data"
          + ".map(d => d.name).join(',')")).asString().startsWith("change point -5.0%");
      screenshot("history-from-notice");
    } finally {
      hook.stop(0);
    }
  }

  private void send(String method, String path, String json, int expected) throws Exception {
    HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(coordinatorUrl + path))
        .header("Content-Type", "application/json").header("Authorization", "Bearer " + API_TOKEN)
        .method(method, HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(method + " " + path + ": " + response.body()).isEqualTo(expected);
  }

  /** A result as another agent sends it for one of its runs: the measurement unchanged. */
  private static KernelResult readdressed(KernelResult r, RunRequest run, String agentId, DeviceInfo device,
      Instant at) {
    return KernelResult.builder().schemaVersion(r.schemaVersion()).id(r.id()).runId(run.runId())
        .sweepId(run.sweepId()).agentId(agentId).agentVersion(r.agentVersion()).fatbinHash(r.fatbinHash())
        .device(device).suite(r.suite()).kernel(r.kernel()).params(r.params()).valid(r.valid())
        .mismatches(r.mismatches()).medianSeconds(r.medianSeconds()).minSeconds(r.minSeconds())
        .maxSeconds(r.maxSeconds()).relativeSpread(r.relativeSpread()).samples(r.samples())
        .launchesPerSample(r.launchesPerSample()).warmupLaunches(r.warmupLaunches()).bytesRead(r.bytesRead())
        .bytesWritten(r.bytesWritten()).bytes(r.bytes()).bandwidth(r.bandwidth()).method(r.method()).measuredAt(at)
        .build();
  }
}
