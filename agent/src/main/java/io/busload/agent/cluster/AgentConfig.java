package io.busload.agent.cluster;

import io.busload.agent.device.Device;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What agent mode needs, resolved once before the verticle starts.
 *
 * @param devices the devices to serve; each gets its own worker thread
 * @param outbox the directory holding results until the coordinator acks them ({@link Outbox})
 * @param labels what the lab calls this host ({@link #labels(Map)}), sent in every hello
 * @param requestTimeout how long a result or status waits for the coordinator's ack before it is sent again
 */
public record AgentConfig(
    String agentId, String host, String agentVersion, String fatbinHash, List<Device> devices, Path outbox,
    Duration helloRetry, Duration helloEvery, Duration heartbeatEvery, List<String> labels, Duration requestTimeout) {

  /** More than a lab needs to place a host, few enough to show beside it. */
  public static final int MAX_LABELS = 32;
  public static final int MAX_LABEL_LENGTH = 100;
  /**
   * A send routed to a member that never answers (gone, or one whose TLS handshake fails) is dropped without an
   * error, so only this timeout ends it; a commit on a busy coordinator takes well under it.
   */
  public static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

  public AgentConfig {
    devices = List.copyOf(devices);
    labels = List.copyOf(labels);
  }

  /** Without labels, with the standard {@link #REQUEST_TIMEOUT}. */
  public AgentConfig(String agentId, String host, String agentVersion, String fatbinHash, List<Device> devices,
      Path outbox, Duration helloRetry, Duration helloEvery, Duration heartbeatEvery) {
    this(agentId, host, agentVersion, fatbinHash, devices, outbox, helloRetry, helloEvery, heartbeatEvery, List.of(),
        REQUEST_TIMEOUT);
  }

  public AgentConfig withLabels(List<String> value) {
    return new AgentConfig(agentId, host, agentVersion, fatbinHash, devices, outbox, helloRetry, helloEvery,
        heartbeatEvery, value, requestTimeout);
  }

  public AgentConfig withRequestTimeout(Duration value) {
    return new AgentConfig(agentId, host, agentVersion, fatbinHash, devices, outbox, helloRetry, helloEvery,
        heartbeatEvery, labels, value);
  }

  /**
   * {@code BUSLOAD_LABELS}: the host's labels, separated by commas ({@code lab-east,rack=a}), each trimmed, empty
   * ones and repeats dropped, none if unset. A schedule targets hosts by one of them, matched exactly. Throws
   * {@link IllegalArgumentException} naming the variable for a label the coordinator would refuse, so the agent
   * stops at start instead of having its hello refused forever.
   */
  public static List<String> labels(Map<String, String> env) {
    String value = env.get("BUSLOAD_LABELS");
    if (value == null || value.isBlank()) {
      return List.of();
    }
    Set<String> labels = new LinkedHashSet<>();
    for (String part : value.split(",")) {
      String label = part.trim();
      if (label.isEmpty()) {
        continue;
      }
      if (label.length() > MAX_LABEL_LENGTH || label.chars().anyMatch(Character::isISOControl)) {
        throw new IllegalArgumentException("BUSLOAD_LABELS: label '" + label + "' must be at most " + MAX_LABEL_LENGTH
            + " characters without control characters");
      }
      labels.add(label);
    }
    if (labels.size() > MAX_LABELS) {
      throw new IllegalArgumentException("BUSLOAD_LABELS: at most " + MAX_LABELS + " labels, got " + labels.size());
    }
    return List.copyOf(labels);
  }

  /** docs/contract.md: hello retried every 2 s until acked and re-sent every 30 s; heartbeat every 2 s. */
  public static AgentConfig standard(String agentId, String host, String agentVersion, String fatbinHash,
      List<Device> devices, Path outbox) {
    return new AgentConfig(agentId, host, agentVersion, fatbinHash, devices, outbox, Duration.ofSeconds(2),
        Duration.ofSeconds(30), Duration.ofSeconds(2));
  }

  /** {@code BUSLOAD_AGENT_ID}, else the host name. */
  public static String agentId(Map<String, String> env, String host) {
    String id = env.get("BUSLOAD_AGENT_ID");
    return id == null || id.isBlank() ? host : id.trim();
  }
}
