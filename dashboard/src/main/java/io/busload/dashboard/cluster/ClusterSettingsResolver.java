package io.busload.dashboard.cluster;

import io.busload.protocol.cluster.ClusterSettings;
import java.util.HashMap;
import java.util.Map;
import org.springframework.core.env.Environment;

/**
 * Resolves the dashboard's cluster settings once: Spring properties {@code busload.cluster.*} over the
 * {@code BUSLOAD_CLUSTER_*} environment variables of docs/contract.md.
 *
 * <p>The properties exist so a test (or an {@code application.properties} beside the jar) can put the dashboard
 * on a unique cluster without touching the process environment.
 */
public final class ClusterSettingsResolver {
  /** The dashboard's event-bus port when nothing says otherwise (docs/contract.md). */
  public static final int DEFAULT_EVENT_BUS_PORT = 7702;

  private static final Map<String, String> PROPERTY_TO_VARIABLE = Map.of(
      "busload.cluster.name", "BUSLOAD_CLUSTER_NAME",
      "busload.cluster.host", "BUSLOAD_CLUSTER_HOST",
      "busload.cluster.public-host", "BUSLOAD_CLUSTER_PUBLIC_HOST",
      "busload.cluster.port", "BUSLOAD_CLUSTER_PORT",
      "busload.cluster.members", "BUSLOAD_CLUSTER_MEMBERS",
      "busload.eventbus.port", "BUSLOAD_EVENTBUS_PORT");

  private ClusterSettingsResolver() {}

  public static ClusterSettings resolve(Map<String, String> environment, Environment spring) {
    Map<String, String> merged = new HashMap<>(environment);
    PROPERTY_TO_VARIABLE.forEach((property, variable) -> {
      String value = spring.getProperty(property);
      if (value != null && !value.isBlank()) {
        merged.put(variable, value);
      }
    });
    return ClusterSettings.fromEnvironment(merged, ClusterSettings.DASHBOARD, DEFAULT_EVENT_BUS_PORT);
  }
}
