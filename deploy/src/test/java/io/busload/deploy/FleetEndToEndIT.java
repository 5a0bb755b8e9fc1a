package io.busload.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import io.busload.protocol.JsonCodec;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One real measurement flows from an agent (CPU backend), over the clustered event bus,
 * into the coordinator's store, back out as CSV, and onto the live chart of a real headless Chromium.
 */
class FleetEndToEndIT {
  static final Path WORK = Path.of("target", "e2e");
  static LocalFleet fleet;

  @BeforeAll
  static void startFleet() throws Exception {
    Files.createDirectories(WORK);
    fleet = new LocalFleet(Files.createTempDirectory(WORK, "fleet-"));
    fleet.startCoordinator();
    fleet.startAgent();
    fleet.startDashboard();
  }

  @AfterAll
  static void stopFleet() throws Exception {
    if (fleet != null) {
      fleet.close();
    }
  }

  @Test
  void sweep_fromRest_isStoredExportedAsCsvAndDrawnLiveInBrowser() throws Exception {
    String deviceId = awaitOnlineCpuDevice();
    JsonNode results;
    String sweepId;
    awaitHttp(fleet.dashboardUrl() + "/", "dashboard");

    try (Playwright playwright = Playwright.create();
        BrowserContext browser = playwright.chromium().launchPersistentContext(
            Files.createTempDirectory(WORK, "chromium-").toAbsolutePath(), chromium())) {
      Page page = browser.newPage();
      page.navigate(fleet.dashboardUrl() + "/");
      page.waitForSelector("busload-echart");
      double pointsBefore = chartPoints(page).size();

      String id = fleet.strideSweep(deviceId);
      sweepId = id;

      JsonNode sweep = await("sweep " + id + " done", 180, () -> fleet.sweepIfDone(id));
      assertThat(sweep.path("completed").asInt()).isEqualTo(sweep.path("total").asInt()).isPositive();

      results = fleet.json("/api/results?sweepId=" + sweepId);
      List<Double> stridedGbps = new ArrayList<>();
      for (JsonNode result : results) {
        assertThat(result.path("valid").asBoolean()).as(result.toString()).isTrue();
        assertThat(result.path("device").path("kind").asText()).isEqualTo("cpu");
        assertThat(result.path("device").path("name").asText()).startsWith("CPU");
        assertThat(result.path("bandwidth").asDouble()).isPositive();
        if (result.path("params").has("stride")) {
          stridedGbps.add(result.path("bandwidth").asDouble() / 1e9);
        }
      }
      // Every result but the memcpy ceiling is a strided copy: stride 1, 2, 3, 4, 5, 8, 16, 32.
      assertThat(stridedGbps).hasSize(results.size() - 1).hasSizeGreaterThanOrEqualTo(6);

      HttpResponse<String> csv = fleet.get(fleet.coordinatorUrl() + "/api/results?sweepId=" + sweepId, "text/csv");
      assertThat(csv.headers().firstValue("Content-Type").orElse("")).startsWith("text/csv");
      List<String> lines = csv.body().lines().filter(l -> !l.isBlank()).toList();
      assertThat(lines.getFirst()).startsWith("id,").contains("kernel", "bandwidth");
      assertThat(lines).hasSize(results.size() + 1);
      assertThat(fleet.get(fleet.coordinatorUrl() + "/api/results?sweepId=" + sweepId + "&format=csv", "*/*")
          .body()).isEqualTo(csv.body());

      // Pushed to the open page, not reloaded: every strided result is a point on the chart, to the MB/s
      // the chart shows.
      List<Double> drawn = await("chart holds the sweep's points", 30, () -> {
        List<Double> ys = chartPoints(page);
        return stridedGbps.stream().allMatch(v -> ys.stream().anyMatch(y -> Math.abs(y - v) <= 0.0005 + 1e-9))
            ? ys : null;
      });
      assertThat(drawn.size()).isGreaterThanOrEqualTo((int) pointsBefore + stridedGbps.size());
      Files.createDirectories(Path.of("target", "screenshots"));
      page.screenshot(new Page.ScreenshotOptions().setPath(Path.of("target", "screenshots", "live-e2e.png"))
          .setFullPage(true));

      // kill -9 the only coordinator and start it again on the same data: every stored result is still there,
      // and the agent and the dashboard, left running, rejoin it (CoordinatorReturn): a second sweep is measured
      // by the same agent and pushed to the page that stayed open.
      List<String> storedIds = new ArrayList<>();
      results.forEach(r -> storedIds.add(r.path("id").asText()));
      fleet.kill("coordinator");
      fleet.startCoordinator();
      String restartedSweep = sweepId;
      List<String> afterRestart = await("coordinator back with the sweep's results", 150, () -> {
        List<String> ids = new ArrayList<>();
        fleet.json("/api/results?sweepId=" + restartedSweep)
            .forEach(r -> ids.add(r.path("id").asText()));
        return ids.isEmpty() ? null : ids;
      });
      assertThat(afterRestart).containsExactlyInAnyOrderElementsOf(storedIds);

      assertThat(awaitOnlineCpuDevice()).isEqualTo(deviceId);
      String secondId = fleet.strideSweep(deviceId);
      await("second sweep " + secondId + " done after the restart", 180, () -> fleet.sweepIfDone(secondId));
      List<Double> secondGbps = new ArrayList<>();
      fleet.json("/api/results?sweepId=" + secondId)
          .forEach(r -> {
            if (r.path("params").has("stride")) {
              secondGbps.add(r.path("bandwidth").asDouble() / 1e9);
            }
          });
      assertThat(secondGbps).hasSizeGreaterThanOrEqualTo(6);
      await("the open page draws the second sweep, pushed by the restarted coordinator", 60, () -> {
        List<Double> ys = chartPoints(page);
        return secondGbps.stream().allMatch(v -> ys.stream().anyMatch(y -> Math.abs(y - v) <= 0.0005 + 1e-9))
            ? ys : null;
      });
    }
  }

  @Test
  void sweep_unknownSuite_is400NamingTheField() throws Exception {
    awaitHttp(fleet.coordinatorUrl() + "/api/agents", "coordinator");
    HttpResponse<String> response = fleet.post(fleet.coordinatorUrl() + "/api/sweeps", "{\"suite\":\"nope\"}");
    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(response.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
    assertThat(json(response).path("field").asText()).isEqualTo("suite");
    assertThat(response.body()).contains("nope");
  }

  /** The bundle's coordinator refuses a write without the fleet's token and keeps tokens out of its log. */
  @Test
  void sweep_withoutOrWithWrongToken_is401NamingAuthorizationAndNotLogged() throws Exception {
    awaitHttp(fleet.coordinatorUrl() + "/api/agents", "coordinator");
    int before = fleet.json("/api/sweeps").size();
    String wrong = "Bearer wrong-" + LocalFleet.TOKEN.substring(4);
    for (String authorization : java.util.Arrays.asList(null, wrong)) {
      HttpResponse<String> response = fleet.post(fleet.coordinatorUrl() + "/api/sweeps", "{\"suite\":\"stride\"}",
          authorization);
      assertThat(response.statusCode()).as(response.body()).isEqualTo(401);
      assertThat(response.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
      assertThat(json(response).path("field").asText()).isEqualTo("Authorization");
    }
    assertThat(fleet.json("/api/sweeps")).hasSize(before);
    assertThat(fleet.log("coordinator")).contains("refused").doesNotContain(LocalFleet.TOKEN)
        .doesNotContain(wrong.substring("Bearer ".length()));
  }

  private static String awaitOnlineCpuDevice() throws Exception {
    return await("agent " + fleet.agentId + " online with a CPU device", 150, () -> {
      if (!fleet.alive("coordinator") || !fleet.alive("agent")) {
        throw new AssertionError("a process exited:\n--- coordinator\n" + fleet.log("coordinator")
            + "\n--- agent\n" + fleet.log("agent"));
      }
      return LocalFleet.onlineCpuDevice(fleet.json("/api/agents"), fleet.agentId);
    });
  }

  private static void awaitHttp(String url, String what) throws Exception {
    await(what + " answering at " + url, 150, () -> fleet.get(url, "*/*").statusCode() == 200 ? true : null);
  }

  /** Every y value of every series of every chart in the page, read from ECharts itself. */
  @SuppressWarnings("unchecked")
  private static List<Double> chartPoints(Page page) {
    Object raw = page.evaluate("""
        () => [...document.querySelectorAll('busload-echart')].flatMap(el => {
          const option = el.option ? el.option() : null;
          if (!option || !option.series) return [];
          return option.series.flatMap(s => (s.data || []).map(d => {
            const v = Array.isArray(d) ? d : (d && d.value);
            return Array.isArray(v) ? Number(v[1]) : Number(v);
          }));
        })""");
    List<Double> ys = new ArrayList<>();
    for (Object value : (List<Object>) raw) {
      if (value instanceof Number n) {
        ys.add(n.doubleValue());
      }
    }
    return ys;
  }

  /** Debian's Chromium with a fresh profile (the persistent context's directory) and no calls home. */
  static BrowserType.LaunchPersistentContextOptions chromium() {
    return new BrowserType.LaunchPersistentContextOptions()
        .setExecutablePath(Paths.get("/usr/bin/chromium"))
        .setHeadless(true)
        .setArgs(List.of("--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"));
  }

  private static JsonNode json(HttpResponse<String> response) throws Exception {
    return JsonCodec.MAPPER.readTree(response.body());
  }

  private static <T> T await(String what, int seconds, Callable<T> probe) throws Exception {
    return new Poll(Duration.ofMillis(500), java.io.IOException.class, () -> "",
        () -> Poll.tails(fleet, List.of("coordinator", "agent", "dashboard"))).until(what, seconds, probe);
  }
}
