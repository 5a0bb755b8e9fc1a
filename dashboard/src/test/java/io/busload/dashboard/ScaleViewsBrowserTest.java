package io.busload.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import io.busload.coordinator.Coordinator;
import io.busload.coordinator.CoordinatorSettings;
import io.busload.dashboard.cluster.LiveFeed;
import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.AgentHello;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.Heartbeat;
import io.busload.protocol.KernelResult;
import io.busload.protocol.Protocol;
import io.busload.protocol.cluster.ClusterSettings;
import io.busload.testsupport.LoopbackCluster;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The Fleet and Live views with 8,000 devices, in a real Chromium. A real coordinator (embedded PostgreSQL,
 * clustered event bus) hears 1,000 agents of 8 GPUs each say hello and heartbeat, as agents do; 100 of them then fall
 * silent and go offline. The Fleet view's open time, and the Live view's frame times while every device's results
 * flow through the coordinator's intake, store and live feed, are printed (docs/results/2026-11-24-scale-views/).
 */
@SpringBootTest(classes = Application.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"vaadin.productionMode=true", "logging.level.io.busload.dashboard.fleet.ui=DEBUG"})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ScaleViewsBrowserTest {
  private static final LoopbackCluster CLUSTER = new LoopbackCluster("busload-dashboard-scale");
  private static final Duration PATIENCE = Duration.ofSeconds(120);
  static final int AGENTS = 1000;
  static final int GPUS = 8;
  static final int SILENT = 100;
  static final int BUSY_EVERY = 4;
  static final List<String> MODELS = List.of("NVIDIA H100 80GB HBM3", "NVIDIA H200", "NVIDIA A100-SXM4-80GB",
      "NVIDIA L40S");
  static final long[] STRIDES = {1, 2, 4, 8, 16, 32};

  private static Coordinator coordinator;
  private static String coordinatorUrl;

  @DynamicPropertySource
  static void fleet(DynamicPropertyRegistry registry) throws Exception {
    startCoordinator();
    BrowserFleet.dashboardSettings(registry, CLUSTER, () -> coordinatorUrl);
    Path users = Files.createTempDirectory("busload-users-").resolve("users.properties");
    registry.add("busload.users-file", users::toString);
  }

  private static synchronized void startCoordinator() throws Exception {
    if (coordinator != null) {
      return;
    }
    coordinator = Coordinator.start(new CoordinatorSettings(Files.createTempDirectory("busload-coordinator-"),
        "127.0.0.1", 0, CLUSTER.settings(ClusterSettings.COORDINATOR))).await(180, TimeUnit.SECONDS);
    coordinatorUrl = "http://127.0.0.1:" + coordinator.httpPort();
  }

  @LocalServerPort
  int port;

  @Autowired
  LiveFeed feed;

  private final List<AgentHello> hellos = new ArrayList<>();
  private long heartbeats;
  private Playwright playwright;
  private BrowserContext browser;
  private Page page;

  @BeforeAll
  void seedFleetAndStartBrowser() throws Exception {
    Vertx vertx = coordinator.vertx();
    long started = System.nanoTime();
    List<Future<?>> acks = new ArrayList<>();
    for (int a = 0; a < AGENTS; a++) {
      String host = String.format("gpu%04d.cluster.example", a);
      List<DeviceInfo> devices = new ArrayList<>();
      for (int g = 0; g < GPUS; g++) {
        devices.add(new DeviceInfo(host + "/cuda:" + g, DeviceInfo.CUDA, MODELS.get(a % MODELS.size()),
            "GPU-" + UUID.nameUUIDFromBytes((host + g).getBytes()), "9.0", 132, 50L << 20, 80L << 30, 2_619_000_000L,
            5120, 3.35e12, "580.95.05"));
      }
      AgentHello hello = new AgentHello(Protocol.SCHEMA_VERSION, "agent-" + host, host, "0.9.1", "fatbin-1", devices,
          Instant.now(), List.of("rack=r" + (a % 25), a < AGENTS / 2 ? "lab-east" : "lab-west"));
      hellos.add(hello);
      acks.add(vertx.eventBus().<Ack>request(Addresses.AGENT_HELLO, hello).map(m -> {
        if (!m.body().ok()) {
          throw new AssertionError("hello refused: " + m.body().reason());
        }
        return m;
      }));
    }
    Future.all(acks).await(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    // Every agent but the last SILENT heartbeats as agents do (every 2 s); every BUSY_EVERY-th device runs something.
    heartbeats = vertx.setPeriodic(2000, id -> {
      for (AgentHello hello : hellos.subList(0, AGENTS - SILENT)) {
        vertx.eventBus().send(Addresses.AGENT_HEARTBEAT, heartbeat(hello));
      }
    });
    System.out.printf("seeded %,d agents with %,d devices through the coordinator in %.1f s%n", AGENTS,
        AGENTS * GPUS, (System.nanoTime() - started) / 1e9);
    playwright = Playwright.create(new Playwright.CreateOptions()
        .setEnv(Map.of("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")));
    browser = BrowserFleet.chromium(playwright, 1400, 1000);
    // Main-thread tasks over 50 ms from each page's start (script parsing and running among them), for openBreakdown.
    browser.addInitScript("new PerformanceObserver(l => (window.longTasks$ ||= []).push(...l.getEntries()"
        + ".map(e => [e.startTime, e.duration]))).observe({type: 'longtask'})");
    page = browser.newPage();
    page.setDefaultTimeout(PATIENCE.toMillis());
    feed.ready().await(PATIENCE.toSeconds(), TimeUnit.SECONDS);
  }

  private static Heartbeat heartbeat(AgentHello hello) {
    List<Heartbeat.DeviceState> states = new ArrayList<>();
    for (int g = 0; g < hello.devices().size(); g++) {
      String device = hello.devices().get(g).id();
      states.add(g % BUSY_EVERY == 0
          ? new Heartbeat.DeviceState(device, "run-" + device, "stride_copy_fp32", 3, 78)
          : new Heartbeat.DeviceState(device, null, null, 0, 0));
    }
    return new Heartbeat(Protocol.SCHEMA_VERSION, hello.agentId(), Instant.now(), states);
  }

  @AfterAll
  void close() throws Exception {
    coordinator.vertx().cancelTimer(heartbeats);
    if (browser != null) {
      browser.close();
    }
    if (playwright != null) {
      playwright.close();
    }
    // After 48,000 results the coordinator may still be checking new series for regressions (two queries for each
    // of the 48,000 series seen for the first time): stopping waits for that, on a loaded machine for over 30 s.
    long stopping = System.nanoTime();
    coordinator.stop().await(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    System.out.printf("coordinator stopped in %.1f s after the scale views%n", (System.nanoTime() - stopping) / 1e9);
  }

  private String url(String path) {
    return "http://127.0.0.1:" + port + "/" + path;
  }

  private static String load() throws Exception {
    return Files.readString(Path.of("/proc/loadavg")).trim();
  }

  private String summary() {
    return page.locator("#fleet-summary").textContent();
  }

  /** Navigates to the Fleet view and waits until its grid shows rows and its summary counts every device. */
  private long openFleet() {
    long started = System.nanoTime();
    page.navigate(url("fleet"));
    page.waitForFunction("() => document.querySelector('#fleet-summary')?.textContent.startsWith('8,000 device(s)')"
        + " && document.querySelectorAll('#fleet-grid vaadin-grid-cell-content').length > 20");
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
  }

  /**
   * Where an open's {@code total} milliseconds went, from the page's Navigation and Resource Timing (measured from the
   * navigation's start): the document, each script and style (size over the wire and decoded, when it arrived), the
   * Vaadin bootstrap request ({@code v-r=init}: the server builds the view there) with its server time, every UIDL
   * round trip, and when the data was on screen.
   */
  private String openBreakdown(long total) {
    return (String) page.evaluate("total => {"
        + " const ms = v => Math.round(v), kb = v => (v / 1024).toFixed(0) + ' KiB';"
        + " const nav = performance.getEntriesByType('navigation')[0];"
        + " const out = [`total ${total} ms (page clock ${ms(performance.now())} ms)`,"
        + "   `document ${ms(nav.responseEnd)} ms (server ${ms(nav.responseStart - nav.requestStart)} ms,"
        + " ${kb(nav.transferSize)})`, `DOMContentLoaded ${ms(nav.domContentLoadedEventEnd)} ms`];"
        + " let wire = 0, decoded = 0;"
        + " for (const r of performance.getEntriesByType('resource')) {"
        + "   const u = new URL(r.name), kind = u.searchParams.get('v-r');"
        + "   const name = kind ? 'v-r=' + kind : u.pathname.slice(u.pathname.lastIndexOf('/') + 1).slice(0, 40);"
        + "   wire += r.transferSize; decoded += r.decodedBodySize;"
        + "   const server = r.responseStart > 0 ? `, server ${ms(r.responseStart - r.requestStart)} ms` : '';"
        + "   const size = r.decodedBodySize ? `, ${kb(r.transferSize)} wire / ${kb(r.decodedBodySize)}` : '';"
        + "   out.push(`${name} ${ms(r.startTime)}-${ms(r.responseEnd)} ms${server}${size}`); }"
        + " out.push(`all resources ${kb(wire)} wire / ${kb(decoded)} decoded`);"
        + " const paint = performance.getEntriesByName('first-contentful-paint')[0];"
        + " if (paint) out.push(`first contentful paint ${ms(paint.startTime)} ms`);"
        + " out.push('long tasks ' + (window.longTasks$ || []).map(([s, d]) => `${ms(s)}+${ms(d)}`).join(' ') + ' ms');"
        + " return out.join('; '); }", (int) total);
  }

  @Test
  @Order(1)
  void fleetView_8000Devices_opensGroupsFiltersCountsAndScrollsLazily() throws Exception {
    // The silent agents go offline OFFLINE_AFTER (10 s) after their hello.
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    String expected = String.format("8,000 device(s) on 1,000 host(s): %,d busy, %,d idle, %,d offline",
        (AGENTS - SILENT) * GPUS / BUSY_EVERY, (AGENTS - SILENT) * GPUS * (BUSY_EVERY - 1) / BUSY_EVERY,
        SILENT * GPUS);
    long first = openFleet();
    String firstBreakdown = openBreakdown(first);
    while (!summary().equals(expected) && System.nanoTime() < deadline) {
      page.waitForTimeout(500);
    }
    assertThat(summary()).isEqualTo(expected);
    long[] again = new long[5];
    for (int i = 0; i < again.length; i++) {
      again[i] = openFleet();
    }
    long[] sorted = again.clone();
    java.util.Arrays.sort(sorted);
    // Printed with its ratio to the 2 s target, not asserted: a timed unit test would judge the machine it runs on.
    System.out.printf("Fleet view with 8,000 devices: first open %d ms, opened again %s ms (median %d ms, %.2f of the"
        + " 2 s target); load %s%n", first, java.util.Arrays.toString(again), sorted[again.length / 2],
        sorted[again.length / 2] / 2000.0, load());
    System.out.println("Fleet view first open, where the time went: " + firstBreakdown);

    // Lazily scrolled: the browser holds a page or two of rows, and the last device comes when scrolled to.
    int cells = page.locator("#fleet-grid vaadin-grid-cell-content").count();
    assertThat(cells).as("cells in the page for 8,000 rows of 9 columns").isLessThan(9 * 200);
    page.evaluate("() => document.querySelector('#fleet-grid').scrollToIndex(7999)");
    page.waitForFunction("() => [...document.querySelectorAll('#fleet-grid vaadin-grid-cell-content')]"
        + ".some(c => c.textContent.trim() === 'gpu0999.cluster.example/cuda:7')");

    // Grouped by model: four groups of 2,000 devices, counted by state; choosing one narrows the grid.
    choose("#fleet-group-by", "model");
    waitForFleet("() => document.querySelector('#fleet-groups')?.size === 4");
    Object groups = page.evaluate("() => document.querySelector('#fleet-groups').size");
    assertThat(groups).isEqualTo(4);
    assertThat(String.join("|", page.locator("#fleet-groups vaadin-grid-cell-content").allTextContents()))
        .contains("NVIDIA H200", "2000");
    long filtered = System.nanoTime();
    page.locator("#fleet-groups vaadin-grid-cell-content", new Page.LocatorOptions().setHasText("NVIDIA H200"))
        .first().click();
    page.waitForFunction("() => document.querySelector('#fleet-summary').textContent.includes('shown: 2,000')");
    long groupMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - filtered);

    // Grouped by label, filtered by text and state: rack r3 holds 40 hosts (320 devices); offline ones are silent.
    choose("#fleet-group-by", "label");
    waitForFleet("() => document.querySelector('#fleet-groups')?.size === 27"); // 25 racks, 2 labs
    page.locator("#fleet-filter input").fill("rack=r3");
    page.waitForFunction("() => document.querySelector('#fleet-summary').textContent.includes('shown: 320 ')");
    page.locator("#fleet-filter input").fill("");
    choose("#fleet-state", "offline");
    page.waitForFunction("() => document.querySelector('#fleet-summary').textContent.includes('shown: 800 (0 busy,"
        + " 0 idle, 800 offline)')");
    System.out.printf("Fleet view: choosing a group of 2,000 devices took %d ms%n", groupMillis);
    Files.createDirectories(Paths.get("target/screenshots"));
    page.screenshot(new Page.ScreenshotOptions().setPath(Paths.get("target/screenshots/fleet-8000.png")));
  }

  /**
   * Opens a select and clicks its item: only its own list's items, since a chosen item's copy also sits in each
   * select's value button ("model" stays there once chosen).
   */
  private void choose(String select, String item) {
    page.locator(select).click();
    page.locator(select + " vaadin-select-list-box vaadin-select-item", new Page.LocatorOptions().setHasText(item))
        .click();
  }

  /** Waits for {@code condition}; if it never holds, fails saying what the Fleet view's controls show instead. */
  private void waitForFleet(String condition) throws Exception {
    try {
      page.waitForFunction(condition);
    } catch (com.microsoft.playwright.TimeoutError e) {
      Files.createDirectories(Paths.get("target/screenshots"));
      page.screenshot(new Page.ScreenshotOptions().setPath(Paths.get("target/screenshots/fleet-8000-failed.png")));
      throw new AssertionError(condition + " never held; the Fleet view shows " + page.evaluate("() => JSON.stringify({"
          + "selectDefined: !!customElements.get('vaadin-select'),"
          + " groupBy: document.querySelector('#fleet-group-by').value,"
          + " opened: document.querySelector('#fleet-group-by').opened,"
          + " groupsInPage: !!document.querySelector('#fleet-groups'),"
          + " groupsHidden: document.querySelector('#fleet-groups')?.hidden,"
          + " groupsSize: document.querySelector('#fleet-groups')?.size,"
          + " summary: document.querySelector('#fleet-summary').textContent})"), e);
    }
  }

  @Test
  @Order(2)
  void liveView_8000DevicesReporting_chartAggregatesPerModel() throws Exception {
    page.navigate(url(""));
    page.waitForFunction("() => document.querySelector('#bandwidth-chart')?.option?.() !== undefined");
    // Frame times as the browser paints them, and main-thread tasks over 50 ms, from here on.
    page.evaluate("() => { window.frames$ = []; window.long$ = []; let last = performance.now();"
        + " const tick = t => { window.frames$.push(t - last); last = t; if (!window.stop$) requestAnimationFrame(tick); };"
        + " requestAnimationFrame(tick);"
        + " new PerformanceObserver(l => l.getEntries().forEach(e => window.long$.push(e.duration)))"
        + ".observe({type: 'longtask', buffered: false}); }");
    // The same figures for 5 s with nothing arriving: what the shared machine alone does to the browser.
    page.waitForTimeout(5000);
    String idle = frameFigures(page);
    page.evaluate("() => { window.frames$ = []; window.long$ = []; }");
    String sweep = "sweep-scale-" + UUID.randomUUID();
    Vertx vertx = coordinator.vertx();
    int total = AGENTS * GPUS * STRIDES.length;
    AtomicInteger refused = new AtomicInteger();
    long started = System.nanoTime();
    // Every device's results of one sweep, through the coordinator's intake (stored, acked, published live), a window
    // of requests in flight as many agents' would be.
    int window = 500;
    List<Future<?>> inFlight = new ArrayList<>();
    int sent = 0;
    for (int s = 0; s < STRIDES.length; s++) {
      for (AgentHello hello : hellos) {
        for (DeviceInfo device : hello.devices()) {
          KernelResult r = result(hello, device, sweep, STRIDES[s], sent);
          inFlight.add(vertx.eventBus().<Ack>request(Addresses.RESULTS, r).map(m -> {
            if (!m.body().ok()) {
              refused.incrementAndGet();
            }
            return m;
          }));
          sent++;
          if (inFlight.size() >= window) {
            Future.all(inFlight).await(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            inFlight.clear();
          }
        }
      }
    }
    Future.all(inFlight).await(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    double seconds = (System.nanoTime() - started) / 1e9;
    page.waitForTimeout(1000);
    page.evaluate("() => { window.stop$ = true; }");
    double[] frames = ((List<?>) page.evaluate("() => window.frames$")).stream()
        .mapToDouble(v -> ((Number) v).doubleValue()).sorted().toArray();
    double[] longTasks = ((List<?>) page.evaluate("() => window.long$")).stream()
        .mapToDouble(v -> ((Number) v).doubleValue()).toArray();
    Object series = page.evaluate("() => document.querySelector('#bandwidth-chart').option().series"
        + ".filter(s => !s.id.includes('#') && !s.id.startsWith('ceiling|')).length");
    Object points = page.evaluate("() => document.querySelector('#bandwidth-chart').option().series"
        + ".filter(s => !s.id.includes('#') && !s.id.startsWith('ceiling|')).flatMap(s => s.data).length");
    double p50 = frames[frames.length / 2];
    double p95 = frames[(int) (frames.length * 0.95)];
    double max = frames[frames.length - 1];
    System.out.printf("Live view: %,d results of %,d devices through the coordinator in %.1f s (%,.0f/s, %d refused);"
        + " browser frames: %d, p50 %.1f ms, p95 %.1f ms, max %.1f ms; long tasks: %d, %.0f ms in all;"
        + " chart lines %s holding %s points; load %s%n", total, AGENTS * GPUS, seconds, total / seconds,
        refused.get(), frames.length, p50, p95, max, longTasks.length,
        java.util.Arrays.stream(longTasks).sum(), series, points, load());
    System.out.println("Live view, the 5 s before (nothing arriving): " + idle);
    assertThat(refused.get()).isZero();
    assertThat(series).as("one line per model and kernel, not per device").isEqualTo(MODELS.size());
    assertThat(points).isEqualTo(MODELS.size() * STRIDES.length);
    assertThat(page.locator("#bandwidth-chart").isVisible()).isTrue();
    // Frame times are printed beside the same page's idle frames, measured in this run, not asserted.
    System.out.printf("Live view: p95 frame time %.2f of the 250 ms target while results arrive%n", p95 / 250);
    Files.createDirectories(Paths.get("target/screenshots"));
    page.screenshot(new Page.ScreenshotOptions().setPath(Paths.get("target/screenshots/live-8000.png")));
  }

  /** Frame count, p50, p95 and max frame time, and long tasks, as the page recorded them so far. */
  private static String frameFigures(Page page) {
    double[] frames = ((List<?>) page.evaluate("() => window.frames$")).stream()
        .mapToDouble(v -> ((Number) v).doubleValue()).sorted().toArray();
    double[] longTasks = ((List<?>) page.evaluate("() => window.long$")).stream()
        .mapToDouble(v -> ((Number) v).doubleValue()).toArray();
    return String.format("browser frames: %d, p50 %.1f ms, p95 %.1f ms, max %.1f ms; long tasks: %d, %.0f ms in all",
        frames.length, frames[frames.length / 2], frames[(int) (frames.length * 0.95)], frames[frames.length - 1],
        longTasks.length, java.util.Arrays.stream(longTasks).sum());
  }

  /** A device's result at one stride: bandwidth by model and stride, with a little spread between devices. */
  private static KernelResult result(AgentHello hello, DeviceInfo device, String sweep, long stride, int n) {
    double peak = 2.0e12 + 0.5e12 * MODELS.indexOf(device.name());
    double bandwidth = peak / Math.min(stride, 32) * (1 + ((n * 7919) % 100 - 50) / 5000.0);
    long bytes = 2L * 4 * (1L << 24);
    double median = bytes / bandwidth;
    return KernelResult.builder().id(UUID.randomUUID()).runId("run-" + device.id()).sweepId(sweep)
        .agentId(hello.agentId()).agentVersion("0.9.1").fatbinHash("fatbin-1").device(device).suite("stride")
        .kernel("stride_copy_fp32").params(Map.of("elements", 1 << 24, "stride", stride)).valid(true)
        .mismatches(List.of()).medianSeconds(median).minSeconds(median * 0.99).maxSeconds(median * 1.01)
        .relativeSpread(0.02).samples(List.of(median * 0.99, median, median * 1.01)).launchesPerSample(20)
        .warmupLaunches(5).bytesRead(bytes / 2).bytesWritten(bytes / 2).bytes(bytes).bandwidth(bandwidth)
        .method("median of 3 samples of 20 launches").measuredAt(Instant.now()).build();
  }
}
