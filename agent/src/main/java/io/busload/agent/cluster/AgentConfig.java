package io.busload.agent.cluster;

import io.busload.agent.device.Device;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * What agent mode needs, resolved once before the verticle starts.
 *
 * @param devices the devices to serve; each gets its own worker thread
 * @param outbox the directory holding results until the coordinator acks them ({@link Outbox})
 */
public record AgentConfig(
    String agentId, String host, String agentVersion, String fatbinHash, List<Device> devices, Path outbox,
    Duration helloRetry, Duration helloEvery, Duration heartbeatEvery) {

  public AgentConfig {
    devices = List.copyOf(devices);
  }

  /** docs/contract.md: hello retried every 2 s until acked and re-sent every 30 s; heartbeat every 2 s. */
  public static AgentConfig standard(String agentId, String host, String agentVersion, String fatbinHash,
      List<Device> devices, Path outbox) {
    return new AgentConfig(agentId, host, agentVersion, fatbinHash, devices, outbox, Duration.ofSeconds(2),
        Duration.ofSeconds(30), Duration.ofSeconds(2));
  }

  /** {@code BUSLOAD_AGENT_ID}, else the host name. */
  public static String agentId(java.util.Map<String, String> env, String host) {
    String id = env.get("BUSLOAD_AGENT_ID");
    return id == null || id.isBlank() ? host : id.trim();
  }
}
