package io.busload.protocol;

/** Every event-bus address, dotted lowercase, in one place. */
public final class Addresses {
  /** Agent to coordinator, request/reply: {@link AgentHello}, answered with an {@link Ack}. */
  public static final String AGENT_HELLO = "busload.agent.hello";
  /** Agent to coordinator, send: {@link Heartbeat}. */
  public static final String AGENT_HEARTBEAT = "busload.agent.heartbeat";
  /** Agent to coordinator, request/reply: {@link KernelResult}, acked only after it is committed. */
  public static final String RESULTS = "busload.results";
  /** Agent to coordinator, request/reply: {@link RunStatus}. */
  public static final String RUN_STATUS = "busload.run.status";
  /** Coordinator to everyone, publish: a {@link KernelResult} once it is stored. */
  public static final String LIVE_RESULTS = "busload.live.results";
  /**
   * Coordinator to everyone, publish: a regression or improvement found in a new result's history,
   * as a JSON object with the change and its environment diff.
   */
  public static final String LIVE_REGRESSIONS = "busload.live.regressions";
  /** Coordinator to everyone, publish: a {@link RunStatus} once the coordinator has recorded it. */
  public static final String LIVE_RUNS = "busload.live.runs";
  /**
   * Every TLS cluster member but coordinators to every coordinator, publish: {@link MemberCertificates}, the
   * certificates the member's event bus runs on, so that the coordinators watch their expiry as they watch their own.
   */
  public static final String MEMBER_CERTIFICATES = "busload.member.certificates";

  /**
   * Agents that are not cluster members reach the fleet through a coordinator's event-bus bridge, with
   * JSON bodies. They send to these addresses (each relayed, as its record, to the address of the same name
   * without {@code bridge}) and register only {@link #bridgeRuns} for their own id. The bridge permits nothing
   * else.
   */
  public static final String BRIDGE_HELLO = "busload.bridge.hello";
  public static final String BRIDGE_HEARTBEAT = "busload.bridge.heartbeat";
  public static final String BRIDGE_RESULTS = "busload.bridge.results";
  public static final String BRIDGE_RUN_STATUS = "busload.bridge.run.status";

  private static final String BRIDGE_RUNS_PREFIX = "busload.bridge.agent.";
  private static final String RUNS_SUFFIX = ".runs";

  private Addresses() {}

  /** Coordinator to one bridged agent, request/reply: a {@link RunRequest} as JSON, answered with an {@link Ack}. */
  public static String bridgeRuns(String agentId) {
    return BRIDGE_RUNS_PREFIX + agentId + RUNS_SUFFIX;
  }

  /** The agent id of a {@link #bridgeRuns} address, or null when {@code address} is not one. */
  public static String agentOfBridgeRuns(String address) {
    if (address == null || !address.startsWith(BRIDGE_RUNS_PREFIX) || !address.endsWith(RUNS_SUFFIX)) {
      return null;
    }
    String agentId = address.substring(BRIDGE_RUNS_PREFIX.length(), address.length() - RUNS_SUFFIX.length());
    return agentId.isEmpty() || agentId.contains(".") ? null : agentId;
  }

  /** Coordinator to one agent, request/reply: {@link RunRequest}, answered with an {@link Ack} on acceptance. */
  public static String agentRuns(String agentId) {
    return "busload.agent." + agentId + ".runs";
  }
}
