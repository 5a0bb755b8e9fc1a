package io.busload.dashboard;

import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Playwright;
import io.busload.testsupport.LoopbackCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;
import java.util.function.Supplier;
import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * What the browser tests against a real coordinator share: the dashboard's cluster and coordinator settings, and
 * Debian's Chromium started as docs/design/invariants.md#platform says (its flags, a fresh profile, no browser
 * download).
 */
public final class BrowserFleet {
  private BrowserFleet() {}

  /** The dashboard joins {@code cluster} as a lite member and reads the coordinator at {@code coordinatorUrl}. */
  public static void dashboardSettings(DynamicPropertyRegistry registry, LoopbackCluster cluster,
      Supplier<Object> coordinatorUrl) {
    registry.add("busload.cluster.name", cluster::name);
    registry.add("busload.cluster.host", () -> LoopbackCluster.HOST);
    registry.add("busload.cluster.members", () -> LoopbackCluster.HOST);
    registry.add("busload.cluster.port", cluster::port);
    registry.add("busload.eventbus.port", () -> 0);
    registry.add("busload.coordinator-url", coordinatorUrl);
  }

  /** Headless Chromium with a fresh profile (launchPersistentContext is Playwright's way to pass one). */
  public static BrowserContext chromium(Playwright playwright, int width, int height) throws IOException {
    return playwright.chromium().launchPersistentContext(Files.createTempDirectory("busload-chromium-"),
        new BrowserType.LaunchPersistentContextOptions()
            .setExecutablePath(Paths.get("/usr/bin/chromium"))
            .setHeadless(true)
            .setViewportSize(width, height)
            .setArgs(List.of("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync")));
  }
}
