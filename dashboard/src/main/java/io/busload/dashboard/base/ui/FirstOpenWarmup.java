package io.busload.dashboard.base.ui;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.busload.dashboard.coordinator.CoordinatorClient;
import io.busload.dashboard.fleet.ui.FleetView;
import java.io.IOException;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * Warms the Fleet view so that its first open after the dashboard starts is as fast as later ones. A cold JVM
 * spends that first open loading classes and interpreting code, in the view's read of the fleet from the
 * coordinator and in Vaadin's own first navigation, not in the browser (ScaleViewsBrowserTest measures it; the
 * figures are in docs/results/2026-11-24-scale-views). So, once at start and in the background, this runs the
 * Fleet view's read of the fleet without a browser ({@link FleetView#warmUp}), then opens the Fleet view as a
 * browser's first visit does: the page, Vaadin's bootstrap, the navigation round trip that builds the view and
 * sends it, and the unload message that closes that UI. A dashboard that serves HTTPS gets only the read: the
 * visits ask plain HTTP on 127.0.0.1.
 */
@Component
public class FirstOpenWarmup {
  private static final Logger LOG = LoggerFactory.getLogger(FirstOpenWarmup.class);
  /** Enough rounds for the fleet's JSON and table code to be compiled, not only loaded. */
  static final int ROUNDS = 3;
  /** Full visits of the Fleet view: the second runs what the first compiled. */
  static final int VISITS = 2;
  private static final ObjectMapper JSON = new ObjectMapper();

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
    try {
      FleetView.warmUp(coordinator, ROUNDS);
    } catch (RuntimeException e) {
      // Only an optimisation: the view, opened for real, shows whatever this met.
      LOG.warn("the Fleet view's warm-up failed; its first open will be slower", e);
      return;
    }
    long read = System.nanoTime();
    int visited = port == null ? 0 : visitFleet(URI.create("http://127.0.0.1:" + port + "/"));
    LOG.info("warmed up for a first open: the Fleet view's read {} ms ({} rounds), {} visit(s) of the view (page,"
        + " bootstrap, navigation, unload) {} ms", TimeUnit.NANOSECONDS.toMillis(read - started), ROUNDS, visited,
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - read));
  }

  /**
   * Opens the Fleet view {@link #VISITS} times as a browser does, each in a new session: Vaadin's bootstrap, the
   * navigation event a browser's first round trip carries, then the unload message a page sends as it closes, so the
   * UI and its table go at once instead of when its heartbeats stay away. Returns the visits whose navigation was
   * answered; any failure ends the warm-up quietly, since the view works the same without it.
   */
  public static int visitFleet(URI page) {
    int answered = 0;
    for (int i = 0; i < VISITS; i++) {
      try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
          .cookieHandler(new CookieManager()).build()) {
        get(http, page);
        JsonNode init = JSON.readTree(get(http, page.resolve("?v-r=init&location=fleet&query=")));
        JsonNode config = init.path("appConfig");
        JsonNode uidl = config.path("uidl");
        String token = uidl.path("Vaadin-Security-Key").asText(null);
        if (!config.has("v-uiId") || token == null) {
          LOG.debug("warm-up: Vaadin's bootstrap had no UI id or security key; no visit");
          return answered;
        }
        URI messages = page.resolve("?v-r=uidl&v-uiId=" + config.path("v-uiId").asInt());
        ObjectNode navigate = JSON.createObjectNode().put("csrfToken", token)
            .put("syncId", uidl.path("syncId").asInt(0)).put("clientId", 0);
        navigate.putArray("rpc").addObject().put("type", "event").put("node", 1).put("event", "ui-navigate")
            .putObject("data").put("route", "fleet").put("query", "").put("appShellTitle", "").put("trigger", "")
            .putObject("historyState").put("idx", 0);
        String text = post(http, messages, navigate);
        JsonNode answer = JSON.readTree(text.replaceFirst("^for\\(;;\\);", ""));
        JsonNode first = answer.isArray() ? answer.path(0) : answer;
        if (!first.has("changes") || !text.contains("\"fleet-grid\"")) {
          LOG.debug("warm-up: the navigation was not answered with the Fleet view; no more visits");
          return answered;
        }
        answered++;
        ObjectNode unload = JSON.createObjectNode().put("csrfToken", token)
            .put("syncId", first.path("syncId").asInt(0)).put("clientId", 1).put("UNLOAD", true);
        unload.putArray("rpc");
        post(http, messages, unload);
      } catch (IOException | RuntimeException e) {
        LOG.debug("warm-up could not visit the Fleet view: {}", e.toString());
        return answered;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return answered;
      }
    }
    return answered;
  }

  private static String get(HttpClient http, URI uri) throws IOException, InterruptedException {
    return answer(uri, http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString()));
  }

  private static String post(HttpClient http, URI uri, JsonNode body) throws IOException, InterruptedException {
    return answer(uri, http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
        .header("Content-Type", "application/json; charset=UTF-8")
        .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(), HttpResponse.BodyHandlers.ofString()));
  }

  private static String answer(URI uri, HttpResponse<String> response) throws IOException {
    if (response.statusCode() != 200) {
      throw new IOException(uri + " answered " + response.statusCode());
    }
    return response.body();
  }
}
