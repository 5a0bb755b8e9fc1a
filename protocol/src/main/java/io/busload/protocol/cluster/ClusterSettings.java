package io.busload.protocol.cluster;

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
 */
public record ClusterSettings(
    String clusterName, String host, String publicHost, int clusterPort, int eventBusPort, List<String> members,
    String role) {

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

  /** Only coordinators hold partitions, so an agent or dashboard crash moves no data. */
  public boolean liteMember() {
    return !COORDINATOR.equals(role);
  }

  /**
   * Reads {@code BUSLOAD_CLUSTER_NAME}, {@code BUSLOAD_CLUSTER_HOST}, {@code BUSLOAD_CLUSTER_PUBLIC_HOST},
   * {@code BUSLOAD_CLUSTER_PORT}, {@code BUSLOAD_EVENTBUS_PORT} and {@code BUSLOAD_CLUSTER_MEMBERS}
   * (comma-separated) over embedded defaults: one machine, loopback.
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
        role);
  }

  private static int intValue(Map<String, String> env, String name, int fallback) {
    String value = env.get(name);
    if (value == null || value.isBlank()) {
      return fallback;
    }
    try {
      return Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + ": not a port number: '" + value + "'");
    }
  }
}
