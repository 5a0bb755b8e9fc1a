package io.busload.dashboard.live;

import static org.assertj.core.api.Assertions.assertThat;

import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import io.busload.dashboard.Application;
import io.busload.dashboard.Results;
import io.busload.dashboard.cluster.ClusterMember;
import io.busload.dashboard.cluster.LiveFeed;
import io.busload.protocol.Addresses;
import io.busload.protocol.KernelResult;
import io.busload.protocol.cluster.ClusterSettings;
import io.busload.testsupport.LoopbackCluster;
import io.busload.testsupport.Ports;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The whole live path in a real browser: a coordinator-role member of a real cluster publishes a result and the
 * chart in the page grows to hold it, through the event bus, the live feed and server push.
 *
 * <p>The dashboard starts before the coordinator joins, as it may in a fleet, so this also proves the lite
 * member keeps retrying its join until a data member exists.
 */
@SpringBootTest(classes = Application.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = "vaadin.productionMode=true")
class LiveViewBrowserTest {
  @AutoClose private static final LoopbackCluster CLUSTER = new LoopbackCluster("busload-dashboard-test");
  private static final Duration PATIENCE = Duration.ofSeconds(60);

  @DynamicPropertySource
  static void cluster(DynamicPropertyRegistry registry) throws IOException {
    registry.add("busload.cluster.name", CLUSTER::name);
    registry.add("busload.cluster.host", () -> LoopbackCluster.HOST);
    registry.add("busload.cluster.members", () -> LoopbackCluster.HOST);
    registry.add("busload.cluster.port", CLUSTER::port);
    registry.add("busload.eventbus.port", () -> 0);
    String coordinatorUrl = "http://127.0.0.1:" + Ports.free();
    registry.add("busload.coordinator-url", () -> coordinatorUrl);
    Path users = Files.createTempDirectory("busload-users-").resolve("users.properties");
    registry.add("busload.users-file", users::toString);
  }

  @LocalServerPort
  int port;

  @Autowired
  LiveFeed feed;

  @Autowired
  ClusterMember member;

  @Test
  void liveView_resultPublishedOnTheCluster_chartGrowsToHoldIt() throws Exception {
    long joinDeadline = System.nanoTime() + PATIENCE.toNanos();
    while (member.lastFailure() == null && System.nanoTime() < joinDeadline) {
      Thread.sleep(200);
    }
    assertThat(member.lastFailure()).as("a lite member alone cannot start clustered Vert.x").isNotNull();
    Vertx coordinator = CLUSTER.join(ClusterSettings.COORDINATOR);
    Path profile = Files.createTempDirectory("busload-chromium-");
    try (Playwright playwright = Playwright.create(
        new Playwright.CreateOptions().setEnv(Map.of("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")))) {
      feed.ready().await(PATIENCE.toSeconds(), TimeUnit.SECONDS);
      // launchPersistentContext is Playwright's way to pass a fresh --user-data-dir.
      BrowserContext browser = playwright.chromium().launchPersistentContext(profile,
          new BrowserType.LaunchPersistentContextOptions()
              .setExecutablePath(Paths.get("/usr/bin/chromium"))
              .setHeadless(true)
              .setArgs(List.of("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync")));
      Page page = browser.newPage();
      page.setDefaultTimeout(PATIENCE.toMillis());
      page.navigate("http://127.0.0.1:" + port + "/");
      page.waitForFunction("() => document.querySelector('busload-echart')?.option?.() !== undefined");

      assertThat(page.locator("#coordinator-notice").textContent()).contains("is unreachable");
      assertThat(seriesData(page)).isEqualTo("[]");

      KernelResult result = Results.stride("sweep-" + UUID.randomUUID(), Results.GPU, 8, 1.234e12, Instant.now());
      String expected = "[[8,1234]]";
      long deadline = System.nanoTime() + PATIENCE.toNanos();
      // Published again until seen: a fresh subscription can take a moment to reach the publisher's view of the
      // cluster, and the chart replaces a point at the same stride, so repeats cannot double it.
      while (!seriesData(page).equals(expected) && System.nanoTime() < deadline) {
        coordinator.eventBus().publish(Addresses.LIVE_RESULTS, result);
        page.waitForTimeout(500);
      }

      page.waitForTimeout(1500); // ECharts animates a new series in; the screenshot should show the point
      Files.createDirectories(Paths.get("target/screenshots"));
      page.screenshot(new Page.ScreenshotOptions().setPath(Paths.get("target/screenshots/live-view.png"))
          .setFullPage(true));
      assertThat(seriesData(page)).isEqualTo(expected);
      assertThat(page.evaluate("() => document.querySelector('busload-echart').option().series[0].name"))
          .asString().contains("NVIDIA H200", "host-b/cuda:0");

      page.navigate("http://127.0.0.1:" + port + "/fleet");
      page.waitForSelector("#fleet-grid");
      assertThat(page.locator("#coordinator-notice").textContent()).contains("is unreachable");
      browser.close();
    }
  }

  /** Every series' points as the chart in the page holds them, in JSON. */
  private static String seriesData(Page page) {
    return (String) page.evaluate(
        "() => JSON.stringify((document.querySelector('busload-echart').option().series ?? [])"
            + ".filter(s => !s.id.includes('#') && !s.id.startsWith('ceiling|')).flatMap(s => s.data))");
  }
}
