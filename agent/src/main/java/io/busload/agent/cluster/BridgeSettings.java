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
 * How an agent reaches the fleet through a bridge, resolved once before it starts.
 *
 * @param endpoints the coordinators' bridges, tried in turn
 * @param tls the agent's fleet certificate; null is a plain WebSocket, allowed to loopback only unless
 *     {@code BUSLOAD_TLS=off} says so (as for the event bus)
 */
public record BridgeSettings(List<BridgeClient.Endpoint> endpoints, FleetTls tls) {
  /** How often the connection proves itself alive; the coordinator drops a connection silent for 20 s. */
  public static final Duration PING = Duration.ofSeconds(5);

  /**
   * Agents reach the fleet through a coordinator's bridge unless {@code BUSLOAD_TRANSPORT=cluster} makes
   * them cluster members (empty then). The bridges are {@code BUSLOAD_BRIDGE} ({@code host:port[,...]}), else the
   * hosts of {@code BUSLOAD_CLUSTER_MEMBERS} (the coordinators' addresses, which an agent's settings already name)
   * on {@code BUSLOAD_BRIDGE_PORT} (7704), else loopback: so one {@code busload.env} serves either transport. TLS
   * from {@code BUSLOAD_TLS_DIR} or {@code BUSLOAD_TLS}, as for the event bus.
   *
   * @throws IllegalArgumentException naming the variable that is wrong
   */
  public static java.util.Optional<BridgeSettings> fromEnvironment(Map<String, String> env) {
    String transport = env.getOrDefault("BUSLOAD_TRANSPORT", "").strip();
    switch (transport) {
      case "", "bridge" -> { }
      case "cluster" -> {
        return java.util.Optional.empty();
      }
      default -> throw new IllegalArgumentException("BUSLOAD_TRANSPORT: 'bridge' (the default) or 'cluster', not '"
          + transport + "'");
    }
    String value = env.get("BUSLOAD_BRIDGE");
    List<BridgeClient.Endpoint> endpoints = value == null || value.isBlank() ? coordinators(env)
        : BridgeClient.Endpoint.parseList("BUSLOAD_BRIDGE", value);
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

  /** The coordinators named for the cluster, each at the bridge port. */
  private static List<BridgeClient.Endpoint> coordinators(Map<String, String> env) {
    int port = BridgeClient.portSetting(env.get("BUSLOAD_BRIDGE_PORT")).orElseThrow(() -> new IllegalArgumentException(
        "BUSLOAD_BRIDGE_PORT=off, but this agent reaches the fleet through the coordinators' bridge (the default): "
        + "name their port, or set BUSLOAD_TRANSPORT=cluster to join the cluster"));
    if (port == 0) {
      throw new IllegalArgumentException("BUSLOAD_BRIDGE_PORT: 0 picks a free port on a coordinator; an agent needs "
          + "the port the coordinators serve");
    }
    String members = env.getOrDefault("BUSLOAD_CLUSTER_MEMBERS", env.getOrDefault("BUSLOAD_CLUSTER_HOST", "127.0.0.1"));
    List<BridgeClient.Endpoint> endpoints = new java.util.ArrayList<>();
    for (String member : members.split(",")) {
      String host = memberHost(member.strip());
      BridgeClient.Endpoint endpoint = new BridgeClient.Endpoint(host, port);
      if (!host.isEmpty() && !endpoints.contains(endpoint)) {
        endpoints.add(endpoint);
      }
    }
    if (endpoints.isEmpty()) {
      throw new IllegalArgumentException("BUSLOAD_CLUSTER_MEMBERS: no coordinator named, and BUSLOAD_BRIDGE is unset");
    }
    return List.copyOf(endpoints);
  }

  /** A Hazelcast member entry ({@code host}, {@code host:port}, {@code [v6]:port} or a bare IPv6 address) without its port. */
  static String memberHost(String member) {
    if (member.startsWith("[")) {
      int close = member.indexOf(']');
      return close < 0 ? member.substring(1) : member.substring(1, close);
    }
    int colon = member.indexOf(':');
    return colon >= 0 && colon == member.lastIndexOf(':') ? member.substring(0, colon) : member;
  }

  /**
   * The agent's id on the bridge. With a certificate it is the certificate's name, which the bridge checks every
   * message against: {@code BUSLOAD_AGENT_ID} may repeat it, and any other value stops the agent here, at start,
   * instead of every hello being refused. Without one, as {@link AgentConfig#agentId}. Blocking file IO.
   *
   * @throws IllegalArgumentException naming {@code BUSLOAD_AGENT_ID} and the certificate's name
   */
  public String agentId(Map<String, String> env, String host) {
    if (tls == null) {
      return AgentConfig.agentId(env, host);
    }
    String certified = FleetTls.nameOf(tls.load(ClusterSettings.AGENT).certificate());
    String asked = env.get("BUSLOAD_AGENT_ID");
    if (asked != null && !asked.isBlank() && !asked.strip().equals(certified)) {
      throw new IllegalArgumentException("BUSLOAD_AGENT_ID=" + asked.strip() + ", but this agent's certificate ("
          + tls.keyStore() + ") was issued to '" + certified + "', and the bridge accepts an agent only under its "
          + "certificate's name: unset BUSLOAD_AGENT_ID, or issue a certificate with ./busload certs --agent "
          + asked.strip());
    }
    return certified;
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
