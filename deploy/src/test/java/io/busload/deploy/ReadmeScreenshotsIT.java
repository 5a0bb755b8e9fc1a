package io.busload.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import io.busload.protocol.JsonCodec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The dashboard on real measurements. The H100 and H200 fleet runs committed under docs/results
 * are pushed ({@code ./busload push}) into a fleet started from the bundle, and every view is drawn from them and
 * photographed for the README. Runs only when asked, because it writes into the repository:
 * {@code ./busload mvn -pl deploy verify -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false
 * -Dit.test=ReadmeScreenshotsIT -Dbusload.screenshots=$PWD/docs/screenshots/real}.
 */
@EnabledIfSystemProperty(named = "busload.screenshots", matches = ".+")
class ReadmeScreenshotsIT {
  static final Path RESULTS = Path.of("..", "docs", "results").toAbsolutePath().normalize();
  static final Path H100 = RESULTS.resolve("2026-11-24-h100-fleet/results");
  static final Path H200 = RESULTS.resolve("2026-11-24-h200-fleet/results");

  @Test
  void everyView_drawnFromPushedH100AndH200Runs() throws Exception {
    Path out = Path.of(System.getProperty("busload.screenshots"));
    Files.createDirectories(out);
    Path work = Files.createDirectories(Path.of("target", "readme-screenshots"));
    try (LocalFleet fleet = new LocalFleet(Files.createTempDirectory(work, "fleet-"))) {
      fleet.startCoordinator();
      fleet.startDashboard();
      // The local fleet's own CPU agent: a schedule needs a device it can target (pushed devices never are one).
      fleet.startAgent();
      awaitHttp(fleet, fleet.coordinatorUrl() + "/api/agents");
      awaitHttp(fleet, fleet.dashboardUrl() + "/");
      for (Path file : List.of(H100.resolve("sweep-rest.json"), H100.resolve("sweep-cron.json"),
          H200.resolve("sweep-rest.json"))) {
        assertThat(push(fleet, file)).contains("78 stored");
      }
      JsonNode liveSweep = JsonCodec.MAPPER.readTree(H200.resolve("sweep-cron.json").toFile());
      String runId = liveSweep.get(0).get("runId").asText();

      try (Playwright playwright = Playwright.create();
          BrowserContext browser = playwright.chromium().launchPersistentContext(
              Files.createTempDirectory(work, "chromium-").toAbsolutePath(), FleetEndToEndIT.chromium())) {
        Page page = browser.newPage();
        page.setViewportSize(1600, 1000);
        // Live: the H200's scheduled sweep pushed while the view is open (Live follows a sweep measured later than
        // the one it shows, so this one goes last); its results arrive in file order.
        page.navigate(fleet.dashboardUrl() + "/");
        page.waitForSelector("busload-echart");
        assertThat(push(fleet, H200.resolve("sweep-cron.json"))).contains("78 stored");
        page.waitForFunction("() => { const e = document.querySelector('#bandwidth-chart');"
            + " const o = e && e.option && e.option(); return !!o && JSON.stringify(o.series).length > 2000"
            + " && o.title[0].subtext.includes('" + liveSweep.get(0).get("sweepId").asText().substring(0, 8) + "'); }");
        shot(page, out, "live");

        page.navigate(fleet.dashboardUrl() + "/fleet");
        page.waitForFunction("() => document.querySelector('#pushed-grid')?.innerText.includes('NVIDIA H200')"
            + " || [...document.querySelectorAll('#pushed-grid vaadin-grid-cell-content')]"
            + ".some(c => c.textContent.includes('NVIDIA H200'))");
        shot(page, out, "fleet");

        page.navigate(fleet.dashboardUrl() + "/compare");
        page.waitForFunction("() => { const o = document.querySelector('#compare-chart')?.option?.();"
            + " return !!o && o.series && o.series.length >= 3; }");
        // Both lent machines were called "vm": one device id, two models; Compare opens with the models.
        page.waitForFunction("() => document.querySelector('#compare-chart').option().series"
            + ".some(s => s.name.includes('H100')) && document.querySelector('#compare-chart').option().series"
            + ".some(s => s.name.includes('H200'))");
        page.locator("#compare-published").click();
        page.waitForFunction("() => document.querySelector('#compare-chart').option().series"
            + ".some(s => s.name.startsWith('published: '))");
        shot(page, out, "compare");

        page.navigate(fleet.dashboardUrl() + "/history?kernel=stride-copy-fp32&params=size%3D67108864%3Bstride%3D1");
        page.waitForFunction("() => { const o = document.querySelector('#history-chart')?.option?.();"
            + " return !!o && o.series && o.series.filter(s => s.type === 'line').length >= 2; }");
        shot(page, out, "history");

        page.navigate(fleet.dashboardUrl() + "/runs/" + runId);
        page.waitForFunction("() => { const o = document.querySelector('#samples-chart')?.option?.();"
            + " return !!o && o.series[0].data.length >= 78; }");
        shot(page, out, "run");

        var created = fleet.post(fleet.coordinatorUrl() + "/api/schedules", "{\"name\":\"nightly H100 and H200\","
            + "\"cron\":\"0 3 * * *\",\"timeZone\":\"UTC\",\"suite\":\"coalescing\",\"target\":{\"kind\":\"all\"}}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        page.navigate(fleet.dashboardUrl() + "/schedules");
        page.waitForFunction("() => document.body.innerText.includes('nightly H100 and H200')"
            + " || [...document.querySelectorAll('vaadin-grid-cell-content')]"
            + ".some(c => c.textContent.includes('nightly H100 and H200'))");
        shot(page, out, "schedules");
      }
    }
  }

  private static void shot(Page page, Path out, String name) {
    page.waitForTimeout(1200); // ECharts animates new series in
    page.screenshot(new Page.ScreenshotOptions().setPath(out.resolve(name + ".png")).setFullPage(false));
  }

  private static void awaitHttp(LocalFleet fleet, String url) throws Exception {
    for (int i = 0; i < 180; i++) {
      try {
        if (fleet.get(url, "*/*").statusCode() == 200) {
          return;
        }
      } catch (java.io.IOException notYet) {
        // starting
      }
      Thread.sleep(1000);
    }
    throw new AssertionError(url + " did not answer in 180 s");
  }

  /** {@code ./busload push} from the bundle, as a lab runs it; its standard output. */
  private static String push(LocalFleet fleet, Path file) throws Exception {
    List<String> command = new ArrayList<>(List.of(PushIT.LAUNCHER.toString(), "push", "--coordinator",
        fleet.coordinatorUrl(), "--token-file", fleet.tokenFile.toString(), "--host", "lent-gpu", file.toString()));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().put("BUSLOAD_BUNDLE", fleet.bundle.toAbsolutePath().toString());
    builder.environment().put("BUSLOAD_JAVA", ProcessHandle.current().info().command().orElse("java"));
    Process process = builder.start();
    String output = new String(process.getInputStream().readAllBytes());
    assertThat(process.waitFor(3, TimeUnit.MINUTES)).isTrue();
    assertThat(process.exitValue()).as(output).isZero();
    return output;
  }
}
