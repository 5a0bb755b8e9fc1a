package io.busload.dashboard.bench;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import com.microsoft.playwright.PlaywrightException;
import io.busload.coordinator.Coordinator;
import io.busload.coordinator.CoordinatorSettings;
import io.busload.coordinator.store.DatabaseSettings;
import io.busload.coordinator.store.RunTarget;
import io.busload.coordinator.store.Database;
import io.busload.coordinator.store.ResultStore;
import io.busload.coordinator.store.SweepStore;
import io.busload.coordinator.store.Sweep;
import io.busload.dashboard.Application;
import io.busload.dashboard.FleetDouble;
import io.busload.kernels.Catalog;
import io.busload.kernels.KernelCase;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.KernelResult;
import io.busload.protocol.Protocol;
import io.busload.protocol.RunRequest;
import io.busload.protocol.RunStatus;
import io.busload.protocol.cluster.ClusterSettings;
import io.busload.testsupport.Ports;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;

/**
 * The target "views load in under 2 s with 1,000,000 results stored", measured: a real PostgreSQL (embedded, zonky,
 * as the coordinator runs it) filled with a year of coalescing-suite sweeps on 16 devices of four agents through
 * the coordinator's own bulk store, then the real coordinator and dashboard, and headless Chromium (Playwright)
 * timing each view from navigation until its chart or table holds its data. Prints one line per view.
 *
 * <p>The results are synthetic (bandwidths from a formula, no counters): they exist to be read back, and the
 * figures printed are load times, never GPU measurements.
 *
 * <p>Run: {@code ./busload mvn -q -pl dashboard exec:java -Dexec.classpathScope=test
 * -Dexec.mainClass=io.busload.dashboard.bench.ViewLoadBench -Dexec.args="1000000 5"} (arguments: results to store,
 * timed loads per view). Screenshots of each view at that size land in {@code dashboard/target/bench-screenshots/}.
 */
public final class ViewLoadBench {
  private static final int AGENTS = 4;
  private static final int DEVICES_PER_AGENT = 4;
  private static final String SUITE = Catalog.COALESCING;
  private static final String[] MODELS = {"NVIDIA H100 80GB HBM3", "NVIDIA H200", "NVIDIA A100-SXM4-80GB",
      "NVIDIA H200"};
  private static final double[] PEAKS = {3.35e12, 4.8e12, 2.04e12, 4.8e12};

  private ViewLoadBench() {}

  public static void main(String[] args) throws Exception {
    long total = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    Path dir = Files.createTempDirectory("busload-view-bench");
    List<KernelCase> cases = Catalog.cases(SUITE);
    List<DeviceInfo> devices = new ArrayList<>();
    List<String> agentOf = new ArrayList<>();
    for (int a = 0; a < AGENTS; a++) {
      for (int g = 0; g < DEVICES_PER_AGENT; g++) {
        devices.add(new DeviceInfo("bench-host-" + a + "/cuda:" + g, DeviceInfo.CUDA, MODELS[a], "GPU-" + a + "-" + g,
            "9.0", 132, 50L << 20, 80L << 30, 2_619_000_000L, 5120, PEAKS[a], "580.65"));
        agentOf.add("bench-agent-" + a);
      }
    }
    int perSweep = devices.size() * cases.size();
    // The fill leaves room for the sweep that arrives live (every device done but one, halfway), so that the store
    // holds at least `total` when the views load.
    int live = perSweep - cases.size() + cases.size() / 2;
    long sweeps = Math.max(1, (total - live + perSweep - 1) / perSweep);

    // fsync off for the fill: what is measured here is reading, and a durable fill of 1M rows only costs time.
    try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().setDataDirectory(dir.resolve("pg"))
        .setServerConfig("shared_buffers", "512MB").start()) {
      DatabaseSettings database = new DatabaseSettings(postgres.getJdbcUrl("postgres", "postgres"), "postgres",
          "postgres");
      long fillStart = System.nanoTime();
      String[] someRun = new String[1];
      try (Database db = Database.open(database, dir.resolve("fill"))) {
        fill(new SweepStore(db), new ResultStore(db), devices, agentOf, cases, sweeps, someRun);
      }
      try (Connection c = DriverManager.getConnection(database.jdbcUrl(), "postgres", "postgres");
          Statement s = c.createStatement()) {
        s.execute("VACUUM ANALYZE");
      }
      System.out.printf(Locale.ROOT, "filled %,d sweeps x %d devices x %d kernel cases = %,d results through"
          + " ResultStore.insertResults in %.0f s (VACUUM ANALYZE after)%n", sweeps, devices.size(), cases.size(),
          sweeps * perSweep, (System.nanoTime() - fillStart) / 1e9);

      String cluster = "busload-view-bench-" + UUID.randomUUID();
      int clusterPort = Ports.free();
      Coordinator coordinator = Coordinator.start(new CoordinatorSettings(dir.resolve("coordinator"), "127.0.0.1", 0,
          new ClusterSettings(cluster, "127.0.0.1", null, clusterPort, 0, List.of("127.0.0.1"),
              ClusterSettings.COORDINATOR), database)).await(180, TimeUnit.SECONDS);
      String coordinatorUrl = "http://127.0.0.1:" + coordinator.httpPort();
      List<FleetDouble> agents = new ArrayList<>();
      for (int a = 0; a < AGENTS; a++) {
        agents.add(new FleetDouble(coordinator.vertx(), "bench-agent-" + a, "bench-host-" + a,
            devices.subList(a * DEVICES_PER_AGENT, (a + 1) * DEVICES_PER_AGENT)));
      }
      HttpClient http = HttpClient.newHttpClient();
      String latestSweep = liveSweep(http, coordinatorUrl, agents, devices, agentOf, cases);
      for (String cron : List.of("0 2 * * *", "30 3 * * 1-5", "0 */6 * * *")) {
        post(http, coordinatorUrl + "/api/schedules", "{\"name\":\"bench " + cron + "\",\"cron\":\"" + cron
            + "\",\"suite\":\"stride\",\"target\":{\"kind\":\"model\",\"value\":\"NVIDIA H200\"}}");
      }
      long stored = count(database, "SELECT count(*) FROM results");
      System.out.printf(Locale.ROOT, "stored results: %,d; machine: %d cores, JVM max heap %d MiB%n", stored,
          Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20);

      Path users = Files.createTempFile(dir, "users-", ".properties");
      Files.writeString(users, "operator={bcrypt}" + new BCryptPasswordEncoder().encode(UUID.randomUUID().toString())
          + ",OPERATOR\n");
      Map<String, Object> properties = new LinkedHashMap<>();
      properties.put("server.port", 0);
      properties.put("vaadin.productionMode", true);
      properties.put("busload.cluster.name", cluster);
      properties.put("busload.cluster.host", "127.0.0.1");
      properties.put("busload.cluster.members", "127.0.0.1");
      properties.put("busload.cluster.port", clusterPort);
      properties.put("busload.eventbus.port", 0);
      properties.put("busload.coordinator-url", coordinatorUrl);
      properties.put("busload.users-file", users.toString());
      ConfigurableApplicationContext dashboard = new SpringApplicationBuilder(Application.class)
          .properties(properties).run();
      String base = "http://127.0.0.1:" + dashboard.getEnvironment().getProperty("local.server.port") + "/";

      KernelCase historyCase = cases.stream().filter(k -> k.spec().name().startsWith("stride-copy")).findFirst()
          .orElse(cases.getFirst());
      Map<String, Object> historyParams = new TreeMap<>(historyCase.params());
      historyParams.put("size", size(historyCase));
      String historyQuery = "kernel=" + enc(historyCase.spec().name()) + "&params=" + enc(params(historyParams));
      int valid = (int) cases.stream().filter(k -> !invalid(k)).count();
      String lastDevice = devices.getLast().id();
      Map<String, View> views = new LinkedHashMap<>();
      views.put("Live", new View("", chart("bandwidth-chart", "o.title[0].subtext === 'sweep " + latestSweep
          + "' && o.series.some(s => s.data && s.data.length > 0)")));
      views.put("Fleet", new View("fleet", "() => [...document.querySelectorAll('#fleet-grid vaadin-grid-cell-content')]"
          + ".some(c => c.textContent.includes('" + lastDevice + "'))"
          + " && document.querySelectorAll('#fleet-grid vaadin-progress-bar').length > 0"));
      views.put("Compare", new View("compare", chart("compare-chart", "o.series && o.series.length >= "
          + devices.size())));
      views.put("History", new View("history?" + historyQuery, chart("history-chart",
          "o.series && o.series.filter(s => s.type === 'line').length >= " + devices.size())));
      views.put("History (first kernel)", new View("history", chart("history-chart",
          "o.series && o.series.filter(s => s.type === 'line' && s.data.length > 0).length >= 1")));
      views.put("Run detail", new View("runs/" + someRun[0], chart("samples-chart",
          "o.series[0].data.length === " + valid)));
      views.put("Runs (list)", new View("runs", "() => document.querySelectorAll('#runs-grid vaadin-grid-cell-content')"
          + ".length > 20"));
      views.put("Schedules", new View("schedules", "() => [...document.querySelectorAll('#schedules-grid "
          + "vaadin-grid-cell-content')].some(c => c.textContent.includes('bench 0 2 * * *'))"));

      try (Playwright playwright = Playwright.create(new Playwright.CreateOptions()
          .setEnv(Map.of("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")));
          Browser browser = playwright.chromium().launch(new BrowserType.LaunchOptions()
              .setExecutablePath(Paths.get("/usr/bin/chromium")).setHeadless(true)
              .setArgs(List.of("--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync")))) {
        Page page = browser.newContext(new Browser.NewContextOptions().setViewportSize(1400, 1000)).newPage();
        page.setDefaultTimeout(60_000);
        Map<String, List<Long>> millis = new LinkedHashMap<>();
        Map<String, Long> cold = new LinkedHashMap<>();
        // The browser's first page of the app loads the frontend bundle and meets a cold JVM; timed apart, so that
        // each view's "first" is that view's own first load.
        long appFirst = load(page, base, new View("login", "() => !!document.querySelector('vaadin-login-form')"));
        views.forEach((name, view) -> cold.put(name, load(page, base, view)));
        // exec:java runs in the reactor's root; the screenshots belong with the dashboard's other test artifacts.
        Path shots = Paths.get(Files.isDirectory(Paths.get("dashboard", "target")) ? "dashboard/target" : "target",
            "bench-screenshots");
        Files.createDirectories(shots);
        for (int round = 0; round < rounds; round++) {
          for (var view : views.entrySet()) {
            long ms = load(page, base, view.getValue());
            millis.computeIfAbsent(view.getKey(), k -> new ArrayList<>()).add(ms);
            if (round == rounds - 1) {
              page.waitForTimeout(800); // ECharts animates new series in
              page.screenshot(new Page.ScreenshotOptions().setPath(shots.resolve(
                  view.getKey().toLowerCase(Locale.ROOT).replaceAll("[^a-z]+", "-").replaceAll("-$", "") + ".png")));
            }
          }
        }
        System.out.printf(Locale.ROOT, "view load with %,d results stored (navigate until the chart or table holds"
            + " its data; headless Chromium, dashboard, coordinator and PostgreSQL on this %d-core machine):%n",
            stored, Runtime.getRuntime().availableProcessors());
        System.out.printf(Locale.ROOT, "  %-24s first %6s ms (frontend bundle downloaded, JVMs cold)%n",
            "app's first page (login)", text(appFirst));
        for (var entry : millis.entrySet()) {
          long[] sorted = entry.getValue().stream().mapToLong(Long::longValue).sorted().toArray();
          System.out.printf(Locale.ROOT, "  %-24s first %6s ms; then over %d loads: median %5d ms, min %5d ms,"
              + " max %5d ms%s%n", entry.getKey(), text(cold.get(entry.getKey())), sorted.length,
              sorted[sorted.length / 2], sorted[0], sorted[sorted.length - 1],
              sorted[sorted.length - 1] >= 2000 || sorted[sorted.length - 1] < 0 ? "  (NOT under 2 s)" : "");
        }
      }
      dashboard.close();
      agents.forEach(FleetDouble::close);
      coordinator.stop().await(60, TimeUnit.SECONDS);
    }
    System.exit(0);
  }

  private record View(String path, String ready) {}

  private static String chart(String id, String condition) {
    return "() => { const e = document.querySelector('#" + id + "'); const o = e && e.option && e.option();"
        + " return !!o && !!(" + condition + "); }";
  }

  /** Milliseconds from navigation until {@code ready} holds in the page; -1 when it never did within a minute. */
  private static long load(Page page, String base, View view) {
    long start = System.nanoTime();
    try {
      page.navigate(base + view.path());
      page.waitForFunction(view.ready());
      return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    } catch (PlaywrightException e) {
      System.out.println("  /" + view.path() + ": not ready within a minute: " + e.getMessage().lines().limit(3)
          .reduce("", (a, b) -> a + " " + b.strip()));
      return -1;
    }
  }

  private static String text(Long ms) {
    return ms == null || ms < 0 ? "never" : Long.toString(ms);
  }

  /**
   * {@code sweeps} sweeps a year back to now, each one run per device, every run the suite's cases, each run
   * DONE: what the coordinator would hold after a year of one nightly-ish sweep.
   */
  private static void fill(SweepStore store, ResultStore results, List<DeviceInfo> devices, List<String> agentOf, List<KernelCase> cases,
      long sweeps, String[] someRun) {
    Instant origin = Instant.now().minus(Duration.ofDays(365));
    long step = Duration.ofDays(365).toMillis() / sweeps;
    long lastReport = System.nanoTime();
    for (long n = 0; n < sweeps; n++) {
      Instant at = origin.plusMillis(n * step);
      List<RunTarget> targets = new ArrayList<>();
      for (int d = 0; d < devices.size(); d++) {
        targets.add(new RunTarget(devices.get(d).id(), agentOf.get(d), cases.size()));
      }
      Sweep sweep = store.createSweep(SUITE, Map.of(), targets, at);
      List<KernelResult> measured = new ArrayList<>(devices.size() * cases.size());
      for (int d = 0; d < devices.size(); d++) {
        String runId = sweep.runs().get(d).runId();
        for (int k = 0; k < cases.size(); k++) {
          measured.add(result(devices.get(d), agentOf.get(d), sweep.id(), runId, cases.get(k),
              at.plusSeconds(k + 1L), n));
        }
      }
      results.insertResults(measured, at);
      for (var run : sweep.runs()) {
        store.recordStatus(new RunStatus(Protocol.SCHEMA_VERSION, run.runId(), sweep.id(), run.agentId(),
            run.deviceId(), RunStatus.State.DONE, cases.size(), cases.size(), null, at.plusSeconds(cases.size())), at);
      }
      someRun[0] = sweep.runs().getFirst().runId();
      if (System.nanoTime() - lastReport > TimeUnit.SECONDS.toNanos(30)) {
        System.out.printf(Locale.ROOT, "  filled %,d of %,d sweeps%n", n + 1, sweeps);
        lastReport = System.nanoTime();
      }
    }
  }

  /** The newest sweep as agents report it: results over the event bus, every device done but one, still running. */
  private static String liveSweep(HttpClient http, String coordinatorUrl, List<FleetDouble> agents,
      List<DeviceInfo> devices, List<String> agentOf, List<KernelCase> cases) throws Exception {
    String created = post(http, coordinatorUrl + "/api/sweeps", "{\"suite\":\"" + SUITE + "\",\"devices\":[\"all\"]}");
    String sweepId = created.replaceAll("(?s).*\"id\"\\s*:\\s*\"([^\"]+)\".*", "$1");
    Map<String, DeviceInfo> byId = new LinkedHashMap<>();
    Map<String, String> agentById = new LinkedHashMap<>();
    for (int d = 0; d < devices.size(); d++) {
      byId.put(devices.get(d).id(), devices.get(d));
      agentById.put(devices.get(d).id(), agentOf.get(d));
    }
    for (FleetDouble agent : agents) {
      for (int d = 0; d < DEVICES_PER_AGENT; d++) {
        RunRequest run = agent.nextRequest();
        boolean stillRunning = run.deviceId().equals(devices.getLast().id());
        int upTo = stillRunning ? cases.size() / 2 : cases.size();
        for (int k = 0; k < upTo; k++) {
          agent.result(result(byId.get(run.deviceId()), agentById.get(run.deviceId()), run.sweepId(), run.runId(), cases.get(k),
              Instant.now(), 0));
        }
        agent.status(run, stillRunning ? RunStatus.State.RUNNING : RunStatus.State.DONE, cases.get(upTo - 1)
            .spec().name(), upTo, cases.size());
      }
    }
    return sweepId;
  }

  /**
   * A valid result of plausible shape: ten samples, a bandwidth below the device's peak that depends on the case
   * (and drifts a little over the sweeps), memory-bound figures only; no counters, since none were counted.
   */
  private static KernelResult result(DeviceInfo device, String agentId, String sweepId, String runId, KernelCase k,
      Instant at, long sweepIndex) {
    Map<String, Object> params = new TreeMap<>(k.params());
    params.put("size", size(k));
    long bytes = 8L << 20;
    double fraction = 0.05 + 0.85 * ((k.toString().hashCode() & 0x7fffffff) % 1000) / 1000.0;
    double bandwidth = device.theoreticalPeakBytesPerSecond() * fraction * (1 - 0.02 * Math.sin(sweepIndex / 50.0));
    double median = bytes / bandwidth;
    List<Double> samples = new ArrayList<>(10);
    for (int i = 0; i < 10; i++) {
      samples.add(median * (1 + 0.002 * (i - 5)));
    }
    boolean ok = !invalid(k);
    return KernelResult.builder().id(UUID.randomUUID()).runId(runId).sweepId(sweepId).agentId(agentId)
        .agentVersion("0.1.0").fatbinHash("bench").device(device).suite(SUITE).kernel(k.spec().name())
        .params(params).valid(ok).mismatches(ok ? List.of() : List.of("out[3]: expected 1.0, got 0.0"))
        .medianSeconds(median).minSeconds(median * 0.99).maxSeconds(median * 1.01).relativeSpread(0.02)
        .samples(samples).launchesPerSample(20).warmupLaunches(10).bytesRead(bytes / 2).bytesWritten(bytes / 2)
        .bytes(bytes).bandwidth(ok ? bandwidth : null).method("synthetic (ViewLoadBench): not a measurement")
        .measuredAt(at).build();
  }

  private static final KernelCase INVALID = Catalog.cases(SUITE).getLast();

  /** One case in every suite run is stored invalid, as real runs have some: the Run detail leaves it out. */
  private static boolean invalid(KernelCase k) {
    return k.equals(INVALID);
  }

  private static long size(KernelCase k) {
    return 1L << 24;
  }

  private static String params(Map<String, Object> params) {
    StringBuilder text = new StringBuilder();
    params.forEach((name, value) -> text.append(text.isEmpty() ? "" : ";").append(name).append('=').append(value));
    return text.toString();
  }

  private static String enc(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }

  private static String post(HttpClient http, String url, String json) throws Exception {
    HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build(),
        HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 201) {
      throw new IllegalStateException(url + " answered " + response.statusCode() + ": " + response.body());
    }
    return response.body();
  }

  private static long count(DatabaseSettings database, String sql) throws Exception {
    try (Connection c = DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
        ResultSet rs = c.createStatement().executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
