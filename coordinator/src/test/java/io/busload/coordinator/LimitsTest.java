package io.busload.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.agent.cluster.Delivery;
import io.busload.agent.cluster.FleetLink;
import io.busload.agent.cluster.Outbox;
import io.busload.coordinator.api.LocalCoordinator;
import io.busload.coordinator.api.RestApiTestSettings;
import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.KernelResult;
import io.busload.protocol.RunRequest;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The coordinator's caps, each played against a real coordinator (REST and bridge on loopback, a real PostgreSQL) as
 * a client that asks for too much would: each is refused with its status and {@code Retry-After}, and a result
 * refused as busy waits in the agent's outbox and is stored later, once.
 */
class LimitsTest {
  private static final DeviceInfo GPU = Fixtures.gpu("lim-host", 0);

  @TempDir Path dir;
  private Vertx vertx;
  private Coordinator coordinator;
  private CoordinatorSettings settings;

  private Coordinator start(UnaryOperator<Limits> limits, boolean bridge) throws Exception {
    vertx = Vertx.vertx();
    settings = RestApiTestSettings.of(dir.resolve("data"));
    settings = settings.withLimits(limits.apply(settings.limits()));
    if (bridge) {
      settings = settings.withBridgePort(0);
    }
    coordinator = Coordinator.deploy(vertx, settings).await(60, TimeUnit.SECONDS);
    return coordinator;
  }

  @AfterEach
  void stop() throws Exception {
    LocalCoordinator.stop(coordinator, vertx);
  }

  @Test
  void results_morePendingThanTheCap_refusedBusyKeptInOutboxAndEachStoredOnce() throws Exception {
    start(l -> l.withPendingResults(10), false);
    Http http = new Http(coordinator.httpPort());
    Ack hello = vertx.eventBus().<Ack>request(Addresses.AGENT_HELLO, Fixtures.hello("lim-agent", GPU))
        .await(10, TimeUnit.SECONDS).body();
    assertThat(hello.ok()).isTrue();
    HttpResponse<String> created = http.post("/api/sweeps", "{\"suite\":\"stride\",\"devices\":[\"" + GPU.id() + "\"]}");
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    JsonNode sweep = Http.json(created);
    String sweepId = sweep.get("id").asText();
    String runId = sweep.get("runs").get(0).get("runId").asText();
    Outbox outbox = Outbox.open(dir.resolve("outbox"));
    int count = 60;
    List<KernelResult> results = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      KernelResult r = Fixtures.result(sweepId, runId, "lim-agent", GPU, 1 + i % 8, true, Instant.now());
      outbox.put(r);
      results.add(r);
    }
    // The agent's own delivery: each result on a lane of its own (as many runs at once would), retried until acked.
    Set<UUID> busyWhileInOutbox = ConcurrentHashMap.newKeySet();
    AtomicInteger busyNotInOutbox = new AtomicInteger();
    FleetLink link = new LocalLink(vertx, (id, busy) -> {
      if (outbox.contains(id)) {
        busyWhileInOutbox.add(id);
      } else {
        busyNotInOutbox.incrementAndGet();
      }
    });
    Context agent = vertx.getOrCreateContext();
    List<Future<Boolean>> delivered = new java.util.concurrent.CopyOnWriteArrayList<>();
    agent.runOnContext(v -> {
      for (KernelResult r : results) {
        Delivery lane = new Delivery(vertx, link, Duration.ofSeconds(10));
        delivered.add(lane.enqueue(Addresses.RESULTS, r, r.id().toString(), true)
            .compose(acked -> vertx.executeBlocking(() -> outbox.remove(r.id()), false)));
      }
    });
    io.busload.testsupport.Await.until(() -> delivered.size() == count, Duration.ofSeconds(10), "lanes made");
    Future.all(delivered).await(120, TimeUnit.SECONDS);

    assertThat(busyWhileInOutbox).as("results answered busy").isNotEmpty();
    assertThat(busyNotInOutbox).hasValue(0);
    assertThat(outbox.pending()).isEmpty();
    assertThat(count("SELECT COUNT(*) FROM results WHERE sweep_id = '" + sweepId + "'")).isEqualTo(count);
    assertThat(count("SELECT COUNT(DISTINCT id) FROM results WHERE sweep_id = '" + sweepId + "'")).isEqualTo(count);
  }

  @Test
  void push_moreAtOnceThanTheCap_429WithRetryAfterBeforeTheBodyIsRead() throws Exception {
    start(l -> l.withConcurrentPushes(1), false);
    Http http = new Http(coordinator.httpPort());
    try (Socket first = new Socket("127.0.0.1", coordinator.httpPort())) {
      // A push whose body is still coming: it holds the one place.
      OutputStream out = first.getOutputStream();
      out.write(("POST /api/pushes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + Http.TOKEN
          + "\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n[").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      Thread.sleep(500);

      HttpResponse<String> second = http.post("/api/pushes", "[]");

      assertThat(second.statusCode()).as(second.body()).isEqualTo(429);
      assertThat(second.headers().firstValue("retry-after")).hasValue("5");
      assertThat(Http.json(second).get("detail").asText()).contains("at most 1 pushes at once");
    }
    // The place is given back when the held push's connection goes.
    io.busload.testsupport.Await.until(() -> http.post("/api/pushes", "[]").statusCode() != 429,
        Duration.ofSeconds(10), "a push admitted again");
  }

  @Test
  void rest_moreConnectionsFromOneAddressThanTheCap_503WithRetryAfter() throws Exception {
    start(l -> l.withConnectionsPerClient(2, 512), false);
    try (Socket a = new Socket("127.0.0.1", coordinator.httpPort());
        Socket b = new Socket("127.0.0.1", coordinator.httpPort())) {
      Thread.sleep(300);
      String answer = exchange(coordinator.httpPort(), "GET /api/agents HTTP/1.1\r\nHost: x\r\n\r\n");
      assertThat(answer).startsWith("HTTP/1.1 503");
      assertThat(answer.toLowerCase()).contains("retry-after: 5").contains("at most 2 rest connections per client");
      assertThat(a.isConnected() && b.isConnected()).isTrue();
    }
    // Under the cap again, the same client is served.
    io.busload.testsupport.Await.until(() -> served(coordinator.httpPort()), Duration.ofSeconds(10),
        "served again under the cap");
  }

  @Test
  void bridge_moreConnectionsFromOneAddressThanTheCap_503WithRetryAfter() throws Exception {
    start(l -> l.withConnectionsPerClient(32, 1), true);
    try (Socket held = new Socket("127.0.0.1", coordinator.bridgePort())) {
      Thread.sleep(300);
      String answer = exchange(coordinator.bridgePort(), "GET /bridge/websocket HTTP/1.1\r\nHost: x\r\n\r\n");
      assertThat(answer).startsWith("HTTP/1.1 503");
      assertThat(answer.toLowerCase()).contains("retry-after: 5").contains("at most 1 bridge connections per client");
    }
  }

  @Test
  void bridge_socketsClosedOneAfterAnother_eachGivesItsPlaceBack() throws Exception {
    start(l -> l.withConnectionsPerClient(32, 2), true);
    io.vertx.core.http.WebSocketClient client = vertx.createWebSocketClient();
    try {
      // Twice the cap, one after another: a WebSocket's connection is never reported closed as an HTTP connection,
      // so a count that waited for that would refuse the third for good.
      for (int i = 0; i < 4; i++) {
        io.vertx.core.http.WebSocket ws = client.connect(coordinator.bridgePort(), "127.0.0.1",
            io.busload.protocol.bridge.BridgeClient.PATH).await(10, TimeUnit.SECONDS);
        ws.close().await(10, TimeUnit.SECONDS);
        Thread.sleep(200);
      }
    } finally {
      client.close().await(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void rest_headersSentAByteAtATime_closedAtTheHeaderTimeout() throws Exception {
    start(l -> l.withTimeouts(Duration.ofSeconds(60), Duration.ofSeconds(2)), false);
    try (Socket slow = new Socket("127.0.0.1", coordinator.httpPort())) {
      slow.setSoTimeout(250);
      byte[] request = "GET /api/agents HTTP/1.1\r\nHost: x\r\nX-Padding: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n"
          .getBytes(StandardCharsets.US_ASCII);
      long start = System.nanoTime();
      boolean closed = false;
      // Each byte resets an idle timer; the header timeout counts from the connect.
      for (int i = 0; i < request.length && !closed; i++) {
        try {
          slow.getOutputStream().write(request[i]);
          slow.getOutputStream().flush();
          closed = slow.getInputStream().read() < 0;
        } catch (SocketTimeoutException stillOpen) {
          // Nothing from the server yet.
        } catch (java.io.IOException reset) {
          closed = true;
        }
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      assertThat(closed).as("closed by the coordinator").isTrue();
      assertThat(seconds).isBetween(1.5, 6.0);
    }
  }

  @Test
  void rest_connectionIdleAfterItsRequest_closedAtTheIdleTimeout() throws Exception {
    start(l -> l.withTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(30)), false);
    try (Socket idle = new Socket("127.0.0.1", coordinator.httpPort())) {
      idle.getOutputStream().write("GET /api/agents HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      idle.setSoTimeout(10_000);
      InputStream in = idle.getInputStream();
      long start = System.nanoTime();
      int read;
      byte[] buffer = new byte[4096];
      do {
        read = in.read(buffer);
      } while (read >= 0);
      double seconds = (System.nanoTime() - start) / 1e9;
      assertThat(seconds).as("closed after the answer, idle").isBetween(0.5, 5.0);
    }
  }

  private static boolean served(int port) {
    try {
      return exchange(port, "GET /api/agents HTTP/1.1\r\nHost: x\r\n\r\n").startsWith("HTTP/1.1 200");
    } catch (Exception e) {
      return false;
    }
  }

  /** Sends {@code request} on a new connection and returns what comes back until the coordinator closes it. */
  private static String exchange(int port, String request) throws Exception {
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout(5000);
      s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
      StringBuilder answer = new StringBuilder();
      byte[] buffer = new byte[4096];
      try {
        int n;
        while ((n = s.getInputStream().read(buffer)) >= 0) {
          answer.append(new String(buffer, 0, n, StandardCharsets.ISO_8859_1));
          if (answer.indexOf("\r\n\r\n") >= 0 && !answer.toString().startsWith("HTTP/1.1 503")) {
            break; // a served request's connection stays open
          }
        }
      } catch (SocketTimeoutException | java.net.SocketException done) {
        // What came is the answer.
      }
      return answer.toString();
    }
  }

  /** The agent's link over this test's local event bus; tells which result was answered busy, while in flight. */
  private record LocalLink(Vertx vertx, BiConsumer<UUID, Boolean> onBusy) implements FleetLink {
    @Override
    public boolean coordinatorPresent() {
      return true;
    }

    @Override
    public String whyAbsent() {
      return "";
    }

    @Override
    public Future<Ack> request(String address, Object message, long timeoutMs) {
      return vertx.eventBus().<Ack>request(address, message, new DeliveryOptions().setSendTimeout(timeoutMs))
          .map(Message::body)
          .onFailure(e -> {
            if (e instanceof ReplyException r && r.failureCode() == 503 && message instanceof KernelResult k) {
              onBusy.accept(k.id(), true);
            }
          });
    }

    @Override
    public void send(String address, Object message) {
      vertx.eventBus().send(address, message);
    }

    @Override
    public Future<Void> serveRuns(String agentId, BiConsumer<RunRequest, Consumer<Ack>> handler) {
      return Future.succeededFuture();
    }
  }

  /** A count in the coordinator's database, read apart from it. */
  private long count(String sql) throws Exception {
    var db = settings.database();
    try (Connection c = DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password());
        ResultSet rs = c.createStatement().executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
