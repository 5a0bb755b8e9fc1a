package io.busload.protocol.bridge;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection to a coordinator's event-bus bridge, speaking the bridge's JSON frames ({@code send}
 * with a {@code replyAddress}, {@code register}, {@code ping}; {@code rec} and {@code err} back). Used on one
 * Vert.x context only.
 *
 * <p>It keeps itself connected: a closed or silent connection (no answer to a WebSocket ping for three ping
 * periods, as after a network cut) is dropped and the next endpoint is tried, with backoff; registrations are made
 * again on every new connection, and requests that were waiting on the old one fail at once, so their senders retry
 * as they would after any failed request.
 */
public final class BridgeClient {
  private static final Logger LOG = LoggerFactory.getLogger(BridgeClient.class);
  /** Where a coordinator serves the bridge's raw WebSocket transport. */
  public static final String PATH = "/bridge/websocket";
  /**
   * The port coordinators serve the bridge on and agents look for it at, unless {@code BUSLOAD_BRIDGE_PORT} says
   * otherwise: next to the event bus's 7701-7703, so one firewall range covers the fleet's ports.
   */
  public static final int DEFAULT_PORT = 7704;

  /**
   * {@code BUSLOAD_BRIDGE_PORT} as coordinators serve it and agents look for it: {@link #DEFAULT_PORT} when unset,
   * empty for {@code off}, else a port number (0 to 65535).
   *
   * @throws IllegalArgumentException naming the variable
   */
  public static java.util.OptionalInt portSetting(String value) {
    if (value == null || value.isBlank()) {
      return java.util.OptionalInt.of(DEFAULT_PORT);
    }
    if (value.strip().equalsIgnoreCase("off")) {
      return java.util.OptionalInt.empty();
    }
    try {
      int port = Integer.parseInt(value.strip());
      if (port >= 0 && port <= 65_535) {
        return java.util.OptionalInt.of(port);
      }
    } catch (NumberFormatException e) {
      // named below
    }
    throw new IllegalArgumentException("BUSLOAD_BRIDGE_PORT: not a port number: '" + value.strip() + "'");
  }
  static final long FIRST_RECONNECT_MS = 250;
  static final long MAX_RECONNECT_MS = 5_000;

  /** A coordinator's bridge: {@code host:port}. */
  public record Endpoint(String host, int port) {
    /**
     * {@code host:port[,host:port...]}, as {@code BUSLOAD_BRIDGE} holds it.
     *
     * @throws IllegalArgumentException naming {@code field} and the entry that is wrong
     */
    public static List<Endpoint> parseList(String field, String value) {
      List<Endpoint> endpoints = new ArrayList<>();
      for (String entry : value.split(",")) {
        String trimmed = entry.strip();
        if (trimmed.isEmpty()) {
          continue;
        }
        int colon = trimmed.lastIndexOf(':');
        if (colon <= 0 || colon == trimmed.length() - 1) {
          throw new IllegalArgumentException(field + ": '" + trimmed + "' is not host:port");
        }
        int port;
        try {
          port = Integer.parseInt(trimmed.substring(colon + 1));
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException(field + ": '" + trimmed + "' has no port number");
        }
        if (port < 1 || port > 65_535) {
          throw new IllegalArgumentException(field + ": port " + port + " of '" + trimmed + "' is out of range");
        }
        endpoints.add(new Endpoint(trimmed.substring(0, colon), port));
      }
      if (endpoints.isEmpty()) {
        throw new IllegalArgumentException(field + ": no host:port given");
      }
      return List.copyOf(endpoints);
    }

    @Override
    public String toString() {
      return host + ":" + port;
    }
  }

  /** A message the bridge delivered on a registered address; answer it with {@link #reply} when it has a reply address. */
  public record Incoming(String address, JsonObject body, String replyAddress) {}

  private record Pending(Promise<JsonObject> promise, long timer) {}

  private final Vertx vertx;
  private final WebSocketClient client;
  private final List<Endpoint> endpoints;
  private final boolean ssl;
  private final long pingMs;
  private final Map<String, Pending> pending = new HashMap<>();
  private final Map<String, Handler<Incoming>> registrations = new LinkedHashMap<>();
  private Handler<Boolean> connectionHandler = up -> { };
  private Handler<String> errorHandler = error -> { };
  private WebSocket socket;
  private Endpoint connectedTo;
  private int nextEndpoint;
  private long reconnectMs = FIRST_RECONNECT_MS;
  private long lastPong;
  private long pingTimer = -1;
  private boolean closed;
  private boolean connecting;

  /**
   * @param options TLS (client certificate, trusted CAs, host check) or plain; see {@code FleetTls.Loaded}
   * @param ping how often the connection is proved alive, both to the bridge (its ping frame) and to this side
   */
  public BridgeClient(Vertx vertx, List<Endpoint> endpoints, WebSocketClientOptions options, Duration ping) {
    this.vertx = vertx;
    this.endpoints = List.copyOf(endpoints);
    this.ssl = options.isSsl();
    this.client = vertx.createWebSocketClient(options);
    this.pingMs = ping.toMillis();
  }

  /** Called with true on every new connection (after its registrations were sent) and false when one is lost. */
  public BridgeClient connectionHandler(Handler<Boolean> handler) {
    this.connectionHandler = handler;
    return this;
  }

  /** Called with the bridge's error frames that answer no request ({@code access_denied}, {@code rejected}). */
  public BridgeClient errorHandler(Handler<String> handler) {
    this.errorHandler = handler;
    return this;
  }

  /** Starts connecting, and keeps connected until {@link #close}; the first connection may come later. */
  public BridgeClient start() {
    connect();
    return this;
  }

  /**
   * New TLS options for the connections made from now on (renewed certificates); the open connection is kept.
   * Completes with whether the client took them.
   */
  public io.vertx.core.Future<Boolean> updateTls(io.vertx.core.net.ClientSSLOptions renewed) {
    return client.updateSSLOptions(renewed);
  }

  public boolean connected() {
    return socket != null;
  }

  /** The endpoint connected to now, or null. */
  public Endpoint endpoint() {
    return socket == null ? null : connectedTo;
  }

  /** Registers {@code address} on the bridge now (if connected) and again on every reconnection. */
  public void register(String address, Handler<Incoming> handler) {
    registrations.put(address, handler);
    if (socket != null) {
      write(new JsonObject().put("type", "register").put("address", address));
    }
  }

  /** A request: the reply's body, or a {@link ReplyException} (timeout, no handler, refused, connection lost). */
  public Future<JsonObject> request(String address, JsonObject body, long timeoutMs) {
    return request(address, body, null, timeoutMs);
  }

  /** A request with headers (a bridge may replace them: the coordinator's does). */
  public Future<JsonObject> request(String address, JsonObject body, JsonObject headers, long timeoutMs) {
    if (socket == null) {
      return Future.failedFuture(new ReplyException(ReplyFailure.NO_HANDLERS, "not connected to a coordinator's bridge"));
    }
    String replyAddress = UUID.randomUUID().toString();
    Promise<JsonObject> promise = Promise.promise();
    long timer = vertx.setTimer(timeoutMs, t -> {
      Pending gone = pending.remove(replyAddress);
      if (gone != null) {
        gone.promise().tryFail(new ReplyException(ReplyFailure.TIMEOUT, "no reply from the bridge within " + timeoutMs
            + " ms for " + address));
      }
    });
    pending.put(replyAddress, new Pending(promise, timer));
    JsonObject frame = new JsonObject().put("type", "send").put("address", address).put("body", body)
        .put("replyAddress", replyAddress);
    if (headers != null) {
      frame.put("headers", headers);
    }
    write(frame);
    return promise.future();
  }

  /** A one-way send; dropped (false) when not connected. */
  public boolean send(String address, JsonObject body) {
    if (socket == null) {
      return false;
    }
    write(new JsonObject().put("type", "send").put("address", address).put("body", body));
    return true;
  }

  /** Answers an {@link Incoming} message. */
  public void reply(String replyAddress, JsonObject body) {
    send(replyAddress, body);
  }

  /** Sends a raw frame as it is (tests of what the bridge refuses). */
  public void sendFrame(JsonObject frame) {
    if (socket != null) {
      write(frame);
    }
  }

  public Future<Void> close() {
    closed = true;
    WebSocket open = socket;
    drop("client closed");
    return (open == null ? Future.<Void>succeededFuture() : open.close()).eventually(client::close);
  }

  private void connect() {
    if (closed || connecting || socket != null) {
      return;
    }
    connecting = true;
    Endpoint endpoint = endpoints.get(nextEndpoint);
    nextEndpoint = (nextEndpoint + 1) % endpoints.size();
    WebSocketConnectOptions options = new WebSocketConnectOptions().setHost(endpoint.host()).setPort(endpoint.port())
        .setURI(PATH).setSsl(ssl).setTimeout(Math.max(1_000, pingMs * 2));
    client.connect(options).onComplete(done -> {
      connecting = false;
      if (done.failed()) {
        LOG.info("bridge {} not reached ({}); next try in {} ms", endpoint, done.cause().getMessage(), reconnectMs);
        scheduleReconnect();
        return;
      }
      if (closed) {
        done.result().close();
        return;
      }
      opened(done.result(), endpoint);
    });
  }

  private void opened(WebSocket opened, Endpoint endpoint) {
    socket = opened;
    connectedTo = endpoint;
    reconnectMs = FIRST_RECONNECT_MS;
    lastPong = System.nanoTime();
    opened.textMessageHandler(this::onFrame);
    // The bridge's raw WebSocket transport writes its frames as binary messages.
    opened.binaryMessageHandler(bytes -> onFrame(bytes.toString(java.nio.charset.StandardCharsets.UTF_8)));
    opened.pongHandler(pong -> lastPong = System.nanoTime());
    opened.exceptionHandler(e -> LOG.info("bridge {}: {}", endpoint, e.getMessage()));
    opened.closeHandler(v -> {
      if (socket == opened) {
        LOG.info("bridge {} closed the connection", endpoint);
        drop("connection to " + endpoint + " closed");
        scheduleReconnect();
      }
    });
    pingTimer = vertx.setPeriodic(pingMs, t -> ping(opened, endpoint));
    registrations.keySet().forEach(address -> write(new JsonObject().put("type", "register").put("address", address)));
    LOG.info("connected to the bridge at {}", endpoint);
    connectionHandler.handle(true);
  }

  private void ping(WebSocket on, Endpoint endpoint) {
    if (socket != on) {
      return;
    }
    if (System.nanoTime() - lastPong > 3 * pingMs * 1_000_000L) {
      LOG.warn("bridge {} silent for {} ms (no pong): dropping the connection", endpoint, 3 * pingMs);
      drop("bridge " + endpoint + " silent");
      on.close();
      scheduleReconnect();
      return;
    }
    write(new JsonObject().put("type", "ping"));
    on.writePing(Buffer.buffer("p"));
  }

  /** Forgets the connection: waiting requests fail now rather than at their timeouts. */
  private void drop(String why) {
    boolean was = socket != null;
    socket = null;
    if (pingTimer >= 0) {
      vertx.cancelTimer(pingTimer);
      pingTimer = -1;
    }
    List<Pending> waiting = new ArrayList<>(pending.values());
    pending.clear();
    waiting.forEach(p -> {
      vertx.cancelTimer(p.timer());
      p.promise().tryFail(new ReplyException(ReplyFailure.NO_HANDLERS, why));
    });
    if (was) {
      connectionHandler.handle(false);
    }
  }

  private void scheduleReconnect() {
    if (closed) {
      return;
    }
    long delay = reconnectMs;
    reconnectMs = Math.min(MAX_RECONNECT_MS, reconnectMs * 2);
    vertx.setTimer(delay, t -> connect());
  }

  private void write(JsonObject frame) {
    socket.writeTextMessage(frame.encode());
  }

  private void onFrame(String text) {
    JsonObject frame;
    try {
      frame = new JsonObject(text);
    } catch (DecodeException e) {
      LOG.warn("bridge sent a frame that is not JSON: {}", text.length() > 200 ? text.substring(0, 200) : text);
      return;
    }
    String type = frame.getString("type", "");
    String address = frame.getString("address");
    if (type.equals("rec")) {
      Pending waiting = address == null ? null : pending.remove(address);
      if (waiting != null) {
        vertx.cancelTimer(waiting.timer());
        Object body = frame.getValue("body");
        if (body instanceof JsonObject json) {
          waiting.promise().tryComplete(json);
        } else {
          waiting.promise().tryFail(new ReplyException(ReplyFailure.ERROR, "reply is not a JSON object: " + body));
        }
        return;
      }
      Handler<Incoming> handler = address == null ? null : registrations.get(address);
      if (handler != null && frame.getValue("body") instanceof JsonObject body) {
        handler.handle(new Incoming(address, body, frame.getString("replyAddress")));
      }
    } else if (type.equals("err")) {
      Pending waiting = address == null ? null : pending.remove(address);
      if (waiting != null) {
        vertx.cancelTimer(waiting.timer());
        ReplyFailure failure;
        try {
          failure = ReplyFailure.valueOf(frame.getString("failureType", "ERROR"));
        } catch (IllegalArgumentException e) {
          failure = ReplyFailure.ERROR;
        }
        waiting.promise().tryFail(new ReplyException(failure, frame.getInteger("failureCode", -1),
            frame.getString("message")));
      } else {
        String error = String.valueOf(frame.getValue("body"));
        LOG.warn("bridge refused a frame: {}", error);
        errorHandler.handle(error);
      }
    }
  }
}
