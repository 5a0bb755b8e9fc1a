package io.busload.dashboard.base.ui;

import io.busload.dashboard.coordinator.CoordinatorClient;
import io.busload.dashboard.fleet.ui.FleetView;
import java.io.IOException;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * Issue 16: the first open of the Fleet view after the dashboard started took twice as long as any later open
 * (ScaleViewsBrowserTest, 8,000 devices: 4.3 s against 0.9 s at load 7), and the browser was not the reason: the
 * page's first request spent 0.76 s in this server and the view's first round trip 2.3 s, of which reading the
 * fleet from the coordinator was 1.2 s (0.1 to 0.25 s once warm). That is a cold JVM: classes loaded and code
 * interpreted the first time. So, once at start and in the background, this asks the server for its page and its
 * Vaadin bootstrap as a browser's first visit does, and runs the Fleet view's read of the fleet without a browser
 * ({@link FleetView#warmUp}).
 */
@Component
public class FirstOpenWarmup {
  private static final Logger LOG = LoggerFactory.getLogger(FirstOpenWarmup.class);
  /** Enough rounds for the fleet's JSON and table code to be compiled, not only loaded. */
  static final int ROUNDS = 3;

  private final CoordinatorClient coordinator;

  public FirstOpenWarmup(CoordinatorClient coordinator) {
    this.coordinator = coordinator;
  }

  @EventListener(ApplicationReadyEvent.class)
  public void start(ApplicationReadyEvent ready) {
    Environment env = ready.getApplicationContext().getEnvironment();
    String port = env.getProperty("local.server.port");
    boolean tls = env.getProperty("server.ssl.enabled", Boolean.class, false)
        || env.getProperty("server.ssl.bundle") != null;
    Thread.ofVirtual().name("first-open-warm-up").start(() -> run(port == null || tls ? null : port));
  }

  private void run(String port) {
    long started = System.nanoTime();
    if (port != null) {
      requestPage(URI.create("http://127.0.0.1:" + port + "/"));
    }
    long paged = System.nanoTime();
    try {
      FleetView.warmUp(coordinator, ROUNDS);
    } catch (RuntimeException e) {
      // Only an optimisation: the view, opened for real, shows whatever this met.
      LOG.warn("the Fleet view's warm-up failed; its first open will be slower", e);
      return;
    }
    LOG.info("warmed up for a first open: the page {} ms, the Fleet view {} ms ({} rounds)",
        TimeUnit.NANOSECONDS.toMillis(paged - started), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - paged),
        ROUNDS);
  }

  /**
   * What a browser's first visit asks before the view's first round trip: the page, then, in the same session,
   * Vaadin's bootstrap ({@code v-r=init}, which makes the session's UI). Only the effect on this JVM matters, not the
   * answers; the UI made here is dropped as any unused one is, when its heartbeats stay away.
   */
  private static void requestPage(URI page) {
    try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
        .cookieHandler(new CookieManager()).build()) {
      for (URI uri : List.of(page, page.resolve("?v-r=init&location=fleet&query="))) {
        HttpResponse<Void> answer = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).build(),
            HttpResponse.BodyHandlers.discarding());
        LOG.debug("warm-up asked {}: {}", uri, answer.statusCode());
      }
    } catch (IOException e) {
      // Bound to another address, say: the warm-up is an optimisation, the page is served all the same.
      LOG.debug("warm-up could not request {}: {}", page, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
