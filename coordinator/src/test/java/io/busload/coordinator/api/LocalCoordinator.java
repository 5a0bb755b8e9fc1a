package io.busload.coordinator.api;

import io.busload.coordinator.Coordinator;
import io.busload.coordinator.CoordinatorSettings;
import io.busload.coordinator.Http;
import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.AgentHello;
import io.busload.protocol.KernelResult;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A coordinator deployed into a plain, non-clustered Vert.x for each test (the event bus is local; the store, the
 * REST server and the HTTP client are real, on loopback), on a fresh database, with a tokens file that accepts
 * {@link Http#TOKEN}. Register it on an instance field: it is up before the test's own {@code @BeforeEach} runs.
 */
public final class LocalCoordinator implements BeforeEachCallback, AfterEachCallback {
  private final Clock clock;
  private Path dir;
  private CoordinatorSettings settings;
  private Vertx vertx;
  private Coordinator coordinator;
  private Http http;

  public LocalCoordinator() {
    this(Clock.systemUTC());
  }

  /** With a clock the test moves (schedules fall due when it says). */
  public LocalCoordinator(Clock clock) {
    this.clock = clock;
  }

  @Override
  public void beforeEach(ExtensionContext context) throws Exception {
    dir = Files.createTempDirectory("busload-coordinator-");
    settings = RestApiTestSettings.of(dir);
    vertx = Vertx.vertx();
    coordinator = Coordinator.deploy(vertx, settings, clock).await(60, TimeUnit.SECONDS);
    http = new Http(coordinator.httpPort());
  }

  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    try {
      stop(coordinator, vertx);
    } finally {
      delete(dir);
    }
  }

  /**
   * Stops {@code coordinator}, then closes each Vert.x, passing over any that was never started (a test that failed
   * early), and closes the Vert.x instances even when the coordinator's stop fails.
   */
  public static void stop(Coordinator coordinator, Vertx... vertxes) throws Exception {
    try {
      if (coordinator != null) {
        coordinator.stop().await(20, TimeUnit.SECONDS);
      }
    } finally {
      for (Vertx vertx : vertxes) {
        if (vertx != null) {
          vertx.close().await(20, TimeUnit.SECONDS);
        }
      }
    }
  }

  public Vertx vertx() {
    return vertx;
  }

  public Http http() {
    return http;
  }

  /** The REST port actually bound. */
  public int httpPort() {
    return coordinator.httpPort();
  }

  public CoordinatorSettings settings() {
    return settings;
  }

  /** Sends {@code body} to {@code address} as an agent would and returns the coordinator's ack. */
  public Ack request(String address, Object body) {
    try {
      return vertx.eventBus().<Ack>request(address, body).await(10, TimeUnit.SECONDS).body();
    } catch (TimeoutException e) {
      throw new AssertionError("no reply on " + address + " in 10 s", e);
    }
  }

  /**
   * Sends an agent's hello or one of its results on the address the agent uses for it, and fails the test unless
   * the coordinator acks it as taken.
   */
  public void deliver(Object message) {
    String address = switch (message) {
      case AgentHello hello -> Addresses.AGENT_HELLO;
      case KernelResult result -> Addresses.RESULTS;
      default -> throw new IllegalArgumentException("an agent sends a hello or a result, not " + message);
    };
    Ack ack = request(address, message);
    if (!ack.ok()) {
      throw new AssertionError("the coordinator refused what was sent on " + address + ": " + ack);
    }
  }

  private static void delete(Path dir) throws IOException {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.delete(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    }
  }
}
