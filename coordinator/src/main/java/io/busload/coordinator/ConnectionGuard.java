package io.busload.coordinator;

import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.SocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one HTTP server (the REST API, the agents' bridge) lets a client hold: at most {@code perClient} connections
 * per client address, none idle past the idle timeout, and none that has not finished its first request's headers
 * within the header timeout (a client sending them a byte at a time would otherwise hold its connection for as long
 * as it likes, since each byte resets the idle timer).
 *
 * <p>A connection over the cap is answered 503 with {@code Retry-After} on its first request and closed; a bridge
 * agent reads that as a failed connect and tries again after its backoff, its results waiting in its outbox.
 * Used on one event loop per server (the coordinator's verticle deploys one instance), so its maps need no lock.
 */
final class ConnectionGuard {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectionGuard.class);

  private final Vertx vertx;
  private final String server;
  private final int perClient;
  private final Duration headerTimeout;
  private final Duration retryAfter;
  private final Map<String, Integer> byClient = new HashMap<>();
  /** Connections counted in {@link #byClient}, by their client. */
  private final Map<HttpConnection, String> counted = new HashMap<>();
  /** Connections over the cap, to be refused at their first request; and those still waiting for one, with timers. */
  private final Map<HttpConnection, Boolean> refused = new HashMap<>();
  private final Map<HttpConnection, Long> awaitingRequest = new HashMap<>();
  private final AtomicLong refusedCount = new AtomicLong();
  private final AtomicLong timedOut = new AtomicLong();

  /** @param server the server's name as logs give it ("REST", "bridge") */
  ConnectionGuard(Vertx vertx, String server, int perClient, Duration headerTimeout, Duration retryAfter) {
    this.vertx = vertx;
    this.server = server;
    this.perClient = perClient;
    this.headerTimeout = headerTimeout;
    this.retryAfter = retryAfter;
  }

  /**
   * The idle timeout on the server's options, and no HTTP/2 over cleartext: Vert.x would wait for a connection's first
   * bytes to tell HTTP/2 from HTTP/1.1 before it reports the connection, so one that sends nothing would go uncounted.
   */
  static HttpServerOptions idle(HttpServerOptions options, Duration idleTimeout) {
    return options.setIdleTimeout((int) idleTimeout.toSeconds()).setIdleTimeoutUnit(java.util.concurrent.TimeUnit.SECONDS)
        .setHttp2ClearTextEnabled(false);
  }

  /** For {@code HttpServer.connectionHandler}: counts the connection against its client and starts its header timer. */
  void onConnection(HttpConnection connection) {
    String client = client(connection.remoteAddress());
    int held = byClient.merge(client, 1, Integer::sum);
    counted.put(connection, client);
    if (held > perClient) {
      refused.put(connection, Boolean.TRUE);
      if (refusedCount.getAndIncrement() % 100 == 0) {
        LOG.warn("{} connection from {} over the cap of {} per client: refused ({} so far)", server, client, perClient,
            refusedCount.get());
      }
    }
    // A refused connection waits at most a second for the request its refusal answers: it holds a socket meanwhile.
    long deadline = refused.containsKey(connection) ? Math.min(1000, headerTimeout.toMillis()) : headerTimeout.toMillis();
    long timer = vertx.setTimer(deadline, id -> {
      if (awaitingRequest.remove(connection) != null) {
        if (timedOut.getAndIncrement() % 100 == 0) {
          LOG.warn("{} connection from {} closed: no complete request within {} s ({} so far)", server, client,
              headerTimeout.toSeconds(), timedOut.get());
        }
        connection.close();
      }
    });
    awaitingRequest.put(connection, timer);
    connection.closeHandler(closed -> {
      Long pending = awaitingRequest.remove(connection);
      if (pending != null) {
        vertx.cancelTimer(pending);
      }
      refused.remove(connection);
      release(connection);
    });
  }

  /** Wraps the server's request handler: a request on a refused connection is answered 503 and the connection closed. */
  Handler<HttpServerRequest> guard(Handler<HttpServerRequest> handler) {
    return request -> {
      HttpConnection connection = request.connection();
      Long pending = awaitingRequest.remove(connection);
      if (pending != null) {
        vertx.cancelTimer(pending);
      }
      if (refused.containsKey(connection)) {
        long seconds = Math.max(1, retryAfter.toSeconds());
        request.response().setStatusCode(503)
            .putHeader(HttpHeaders.RETRY_AFTER, Long.toString(seconds))
            .putHeader(HttpHeaders.CONNECTION, "close")
            .putHeader(HttpHeaders.CONTENT_TYPE, "application/problem+json")
            .end(new io.vertx.core.json.JsonObject().put("type", "about:blank").put("title", "Service Unavailable")
                .put("status", 503).put("detail", "at most " + perClient + " " + server
                    + " connections per client address; retry in " + seconds + " s").encode())
            .onComplete(done -> connection.close());
        return;
      }
      boolean upgrade = "websocket".equalsIgnoreCase(request.getHeader(HttpHeaders.UPGRADE));
      handler.handle(request);
      if (upgrade) {
        // A WebSocket takes the connection over, and the HTTP connection's close is never reported: the bridge counts
        // its sockets per client itself (AgentBridge), so this count lets go of the connection here.
        release(connection);
      }
    };
  }

  private void release(HttpConnection connection) {
    String client = counted.remove(connection);
    if (client != null) {
      byClient.computeIfPresent(client, (k, n) -> n <= 1 ? null : n - 1);
    }
  }

  /** Connections refused over the cap since the start. */
  long refused() {
    return refusedCount.get();
  }

  /** Connections closed for not finishing a request in time, since the start. */
  long timedOut() {
    return timedOut.get();
  }

  private static String client(SocketAddress address) {
    if (address == null) {
      return "unknown";
    }
    String host = address.hostAddress();
    return host == null ? String.valueOf(address) : host;
  }
}
