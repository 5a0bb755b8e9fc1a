package io.busload.protocol.bridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.json.JsonObject;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The bridge client against a small server that speaks the bridge's frames (binary, as Vert.x's raw WebSocket
 * transport writes them): endpoints tried in turn, replies matched to requests, registrations made again on a new
 * connection, and a request waiting on a connection that closes failed at once rather than at its timeout.
 */
class BridgeClientTest {
  private Vertx vertx;
  private HttpServer server;
  private final List<JsonObject> received = new CopyOnWriteArrayList<>();
  private final List<ServerWebSocket> sockets = new CopyOnWriteArrayList<>();
  /** When false the server takes requests and never answers them. */
  private volatile boolean answering = true;

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    server = vertx.createHttpServer().webSocketHandler(socket -> {
      sockets.add(socket);
      socket.textMessageHandler(text -> {
        JsonObject frame = new JsonObject(text);
        received.add(frame);
        if (answering && "send".equals(frame.getString("type")) && frame.getString("replyAddress") != null) {
          JsonObject reply = new JsonObject().put("type", "rec").put("address", frame.getString("replyAddress"))
              .put("body", new JsonObject().put("echo", frame.getJsonObject("body")));
          socket.writeBinaryMessage(Buffer.buffer(reply.encode()));
        }
      });
    }).listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  @Test
  void firstEndpointDown_secondAnswers_replyMatchedToItsRequest() throws Exception {
    BridgeClient client = client(List.of(new BridgeClient.Endpoint("127.0.0.1", closedPort()),
        new BridgeClient.Endpoint("127.0.0.1", server.actualPort())));
    awaitConnected(client);
    assertThat(client.endpoint().port()).isEqualTo(server.actualPort());

    JsonObject reply = request(client, new JsonObject().put("n", 7), 10_000);

    assertThat(reply.getJsonObject("echo").getInteger("n")).isEqualTo(7);
    JsonObject sent = received.stream().filter(f -> "send".equals(f.getString("type"))).findFirst().orElseThrow();
    assertThat(sent.getString("address")).isEqualTo("busload.bridge.hello");
    assertThat(sent.getString("replyAddress")).hasSize(36);
  }

  @Test
  void connectionClosed_waitingRequestFailsAtOnce_thenReconnectsAndRegistersAgain() throws Exception {
    BridgeClient client = client(List.of(new BridgeClient.Endpoint("127.0.0.1", server.actualPort())));
    awaitConnected(client);
    vertx.runOnContext(v -> client.register("busload.bridge.agent.a1.runs", incoming -> { }));
    awaitFrames("register", 1);
    answering = false;
    CompletableFuture<Object> waiting = new CompletableFuture<>();
    vertx.runOnContext(v -> client.request("busload.bridge.results", new JsonObject(), 60_000)
        .onComplete(r -> waiting.complete(r.succeeded() ? r.result() : r.cause())));
    awaitFrames("send", 1);
    long closedAt = System.nanoTime();

    sockets.getFirst().close();

    Object outcome = waiting.get(10, TimeUnit.SECONDS);
    assertThat(Duration.ofNanos(System.nanoTime() - closedAt)).isLessThan(Duration.ofSeconds(10));
    assertThat(outcome).isInstanceOf(ReplyException.class);
    assertThat(((ReplyException) outcome).failureType()).isEqualTo(ReplyFailure.NO_HANDLERS);
    awaitFrames("register", 2);
    assertThat(sockets).hasSize(2);
    assertThat(client.connected()).isTrue();
  }

  @Test
  void notConnected_requestFailsNamingIt_andEndpointListsAreChecked() throws Exception {
    BridgeClient client = new BridgeClient(vertx, List.of(new BridgeClient.Endpoint("127.0.0.1", closedPort())),
        new WebSocketClientOptions(), Duration.ofSeconds(1));
    assertThatThrownBy(() -> client.request("busload.bridge.hello", new JsonObject(), 1_000)
        .await(5, TimeUnit.SECONDS)).hasMessageContaining("not connected");

    assertThat(BridgeClient.Endpoint.parseList("BUSLOAD_BRIDGE", " c1:7443, c2.lab:7444 "))
        .containsExactly(new BridgeClient.Endpoint("c1", 7443), new BridgeClient.Endpoint("c2.lab", 7444));
    assertThatThrownBy(() -> BridgeClient.Endpoint.parseList("BUSLOAD_BRIDGE", "c1"))
        .hasMessage("BUSLOAD_BRIDGE: 'c1' is not host:port");
    assertThatThrownBy(() -> BridgeClient.Endpoint.parseList("BUSLOAD_BRIDGE", "c1:x"))
        .hasMessage("BUSLOAD_BRIDGE: 'c1:x' has no port number");
    assertThatThrownBy(() -> BridgeClient.Endpoint.parseList("BUSLOAD_BRIDGE", "c1:70000"))
        .hasMessageContaining("out of range");
    assertThatThrownBy(() -> BridgeClient.Endpoint.parseList("BUSLOAD_BRIDGE", " , "))
        .hasMessage("BUSLOAD_BRIDGE: no host:port given");
  }

  private BridgeClient client(List<BridgeClient.Endpoint> endpoints) {
    BridgeClient client = new BridgeClient(vertx, endpoints, new WebSocketClientOptions(), Duration.ofSeconds(1));
    vertx.runOnContext(v -> client.start());
    return client;
  }

  private JsonObject request(BridgeClient client, JsonObject body, long timeoutMs) throws Exception {
    CompletableFuture<JsonObject> reply = new CompletableFuture<>();
    vertx.runOnContext(v -> client.request("busload.bridge.hello", body, timeoutMs)
        .onSuccess(reply::complete).onFailure(reply::completeExceptionally));
    try {
      return reply.get(20, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new AssertionError("request failed: " + e.getCause(), e.getCause());
    }
  }

  private static void awaitConnected(BridgeClient client) throws InterruptedException {
    long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (!client.connected()) {
      assertThat(System.nanoTime()).as("connected within 20 s").isLessThan(end);
      Thread.sleep(20);
    }
  }

  private void awaitFrames(String type, int count) throws InterruptedException {
    long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (received.stream().filter(f -> type.equals(f.getString("type"))).count() < count) {
      assertThat(System.nanoTime()).as("%d %s frame(s) within 20 s", count, type).isLessThan(end);
      Thread.sleep(20);
    }
  }

  private static int closedPort() throws Exception {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
