package io.busload.agent.cluster;

import io.busload.protocol.bridge.BridgeClient;
import io.busload.protocol.cluster.ClusterSettings;
import io.busload.protocol.cluster.FleetTls;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocketClientOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * How an agent reaches the fleet through a bridge (issue 16), resolved once before it starts.
 *
 * @param endpoints the coordinators' bridges, tried in turn
 * @param tls the agent's fleet certificate; null is a plain WebSocket, allowed to loopback only unless
 *     {@code BUSLOAD_TLS=off} says so (as for the event bus)
 */
public record BridgeSettings(List<BridgeClient.Endpoint> endpoints, FleetTls tls) {
  /** How often the connection proves itself alive; the coordinator drops a connection silent for 20 s. */
  public static final Duration PING = Duration.ofSeconds(5);

  /**
   * {@code BUSLOAD_BRIDGE} ({@code host:port[,...]}) with {@code BUSLOAD_TLS_DIR} or {@code BUSLOAD_TLS}; empty
   * when {@code BUSLOAD_BRIDGE} is unset, and the agent joins the cluster as a member.
   *
   * @throws IllegalArgumentException naming the variable that is wrong
   */
  public static java.util.Optional<BridgeSettings> fromEnvironment(Map<String, String> env) {
    String value = env.get("BUSLOAD_BRIDGE");
    if (value == null || value.isBlank()) {
      return java.util.Optional.empty();
    }
    List<BridgeClient.Endpoint> endpoints = BridgeClient.Endpoint.parseList("BUSLOAD_BRIDGE", value);
    String dir = env.get("BUSLOAD_TLS_DIR");
    boolean off = "off".equals(env.getOrDefault("BUSLOAD_TLS", "").strip());
    if (dir != null && !dir.isBlank()) {
      if (off) {
        throw new IllegalArgumentException("BUSLOAD_TLS=off and BUSLOAD_TLS_DIR are both set: unset one");
      }
      return java.util.Optional.of(new BridgeSettings(endpoints, FleetTls.inDirectory(Path.of(dir.strip()))));
    }
    if (!off) {
      for (BridgeClient.Endpoint endpoint : endpoints) {
        if (!ClusterSettings.loopback(endpoint.host())) {
          throw new IllegalArgumentException("BUSLOAD_BRIDGE: " + endpoint + " is not a loopback address, and the "
              + "bridge would be a plain WebSocket: set BUSLOAD_TLS_DIR to this agent's directory from ./busload certs"
              + " (or BUSLOAD_TLS=off to run without TLS on a network you trust)");
        }
      }
    }
    return java.util.Optional.of(new BridgeSettings(endpoints, null));
  }

  /** The client, TLS loaded and checked (blocking file IO), not yet started. */
  public BridgeClient client(Vertx vertx) {
    WebSocketClientOptions options = new WebSocketClientOptions().setMaxFrameSize(1 << 20)
        .setMaxMessageSize(16 << 20);
    if (tls != null) {
      tls.load(ClusterSettings.AGENT).applyBridgeClient(options);
    }
    return new BridgeClient(vertx, endpoints, options, PING);
  }
}
