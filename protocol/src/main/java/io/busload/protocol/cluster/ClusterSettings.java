package io.busload.protocol.cluster;

import io.busload.protocol.EnvNumbers;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Where and how a member joins the fleet's cluster; resolved once, before anything starts.
 *
 * @param clusterName members with another name form a cluster of their own
 * @param host interface address to bind (cluster and event bus); loopback by default
 * @param publicHost address other members use to reach this one
 * @param clusterPort Hazelcast member port (the first one tried; the next 20 are tried after it)
 * @param eventBusPort fixed event-bus port so a firewall can name it; 0 picks a free one
 * @param members Hazelcast TCP-IP members, {@code host[:port]}; a host without a port is tried on the whole port range
 * @param role {@code coordinator}, {@code agent} or {@code dashboard}; only coordinators hold data
 * @param tls the member's fleet certificate; null means a plain-TCP event bus, which {@link #fromEnvironment}
 *     allows on loopback only (or when {@code BUSLOAD_TLS=off} says so)
 */
public record ClusterSettings(
    String clusterName, String host, String publicHost, int clusterPort, int eventBusPort, List<String> members,
    String role, FleetTls tls) {

  public static final String COORDINATOR = "coordinator";
  public static final String AGENT = "agent";
  public static final String DASHBOARD = "dashboard";
  public static final String ROLE_ATTRIBUTE = "busload.role";

  public ClusterSettings {
    Objects.requireNonNull(clusterName, "clusterName");
    Objects.requireNonNull(host, "host");
    members = List.copyOf(members);
    if (publicHost == null || publicHost.isBlank()) {
      publicHost = host;
    }
  }

  /** Plain TCP: tests and one-machine use on loopback. */
  public ClusterSettings(String clusterName, String host, String publicHost, int clusterPort, int eventBusPort,
      List<String> members, String role) {
    this(clusterName, host, publicHost, clusterPort, eventBusPort, members, role, null);
  }

  public ClusterSettings withTls(FleetTls fleetTls) {
    return new ClusterSettings(clusterName, host, publicHost, clusterPort, eventBusPort, members, role, fleetTls);
  }

  /** Only coordinators hold partitions, so an agent or dashboard crash moves no data. */
  public boolean liteMember() {
    return !COORDINATOR.equals(role);
  }

  /**
   * Reads {@code BUSLOAD_CLUSTER_NAME}, {@code BUSLOAD_CLUSTER_HOST}, {@code BUSLOAD_CLUSTER_PUBLIC_HOST},
   * {@code BUSLOAD_CLUSTER_PORT}, {@code BUSLOAD_EVENTBUS_PORT} and {@code BUSLOAD_CLUSTER_MEMBERS}
   * (comma-separated) over embedded defaults: one machine, loopback.
   *
   * <p>TLS: {@code BUSLOAD_TLS_DIR} names this member's directory from {@code ./busload certs}. Without it the event
   * bus is plain TCP, which is refused on any interface but loopback unless {@code BUSLOAD_TLS=off} says that is
   * meant: Hazelcast open source authenticates nobody, so on a network only the certificate keeps strangers from
   * reading results and faking acks.
   */
  public static ClusterSettings fromEnvironment(Map<String, String> env, String role, int defaultEventBusPort) {
    String host = env.getOrDefault("BUSLOAD_CLUSTER_HOST", "127.0.0.1");
    int clusterPort = intValue(env, "BUSLOAD_CLUSTER_PORT", 5701);
    String members = env.getOrDefault("BUSLOAD_CLUSTER_MEMBERS", host);
    return new ClusterSettings(
        env.getOrDefault("BUSLOAD_CLUSTER_NAME", "busload"),
        host,
        env.get("BUSLOAD_CLUSTER_PUBLIC_HOST"),
        clusterPort,
        intValue(env, "BUSLOAD_EVENTBUS_PORT", defaultEventBusPort),
        Arrays.stream(members.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList(),
        role,
        tls(env, host));
  }

  private static FleetTls tls(Map<String, String> env, String host) {
    String dir = env.get("BUSLOAD_TLS_DIR");
    String mode = env.getOrDefault("BUSLOAD_TLS", "").strip();
    if (!mode.isEmpty() && !mode.equals("off")) {
      throw new IllegalArgumentException("BUSLOAD_TLS: only 'off' is understood (TLS is on when BUSLOAD_TLS_DIR is "
          + "set), got '" + mode + "'");
    }
    if (dir != null && !dir.isBlank()) {
      if (mode.equals("off")) {
        throw new IllegalArgumentException("BUSLOAD_TLS=off and BUSLOAD_TLS_DIR are both set: unset one");
      }
      return FleetTls.inDirectory(Path.of(dir.strip()));
    }
    if (!mode.equals("off") && !loopback(host)) {
      throw new IllegalArgumentException("BUSLOAD_CLUSTER_HOST=" + host + " is not a loopback address, and the event "
          + "bus would be plain TCP: set BUSLOAD_TLS_DIR to this member's directory from ./busload certs (or "
          + "BUSLOAD_TLS=off to run without TLS on a network you trust)");
    }
    return null;
  }

  /** Whether {@code host} is a loopback address (a name is resolved once, at start). */
  public static boolean loopback(String host) {
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  private static int intValue(Map<String, String> env, String name, int fallback) {
    return EnvNumbers.wholeNumber(env, name, fallback, "a port number");
  }
}
