package io.busload.dashboard.fleet;

import io.busload.dashboard.coordinator.Agent;
import io.busload.dashboard.coordinator.AgentDevice;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/** One table row per device (an agent without devices still gets a row, so it does not vanish from view). */
public final class FleetRows {

  /** What the fleet table shows for one device of one agent. */
  public record Row(String agentId, String host, String agentVersion, boolean online, Instant lastSeen,
      String deviceId, String deviceName, String kind, String fingerprint, String now, String runId,
      double progress, int queued, List<String> labels) {

    public Row {
      labels = labels == null ? List.of() : List.copyOf(labels);
    }

    public String state() {
      return online ? "online" : "offline";
    }

    /** busy (online, running something), idle (online, nothing to run) or offline: what the Fleet view counts. */
    public Activity activity() {
      return !online ? Activity.OFFLINE : runId != null ? Activity.BUSY : Activity.IDLE;
    }
  }

  /** What a device is doing, as the Fleet view counts and filters devices. */
  public enum Activity {
    BUSY, IDLE, OFFLINE;

    public String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  private FleetRows() {}

  public static List<Row> of(List<Agent> agents) {
    return of(agents, Map.of());
  }

  /** With {@code queued}: how many runs wait per device id (runs in state QUEUED). */
  public static List<Row> of(List<Agent> agents, Map<String, Integer> queued) {
    List<Row> rows = new ArrayList<>();
    agents.stream().sorted(Comparator.comparing(Agent::agentId)).forEach(agent -> {
      if (agent.devices().isEmpty()) {
        rows.add(new Row(agent.agentId(), agent.host(), agent.agentVersion(), agent.online(), agent.lastSeen(),
            "", "no devices reported", "", "", agent.online() ? "idle" : "unreachable", null, 0, 0, agent.labels()));
      }
      for (AgentDevice device : agent.devices()) {
        rows.add(new Row(agent.agentId(), agent.host(), agent.agentVersion(), agent.online(), agent.lastSeen(),
            device.id(), device.name(), device.kind(), device.fingerprint(), now(agent, device),
            agent.online() ? device.runId() : null, progress(agent, device), queued.getOrDefault(device.id(), 0),
            agent.labels()));
      }
    });
    return rows;
  }

  /** The share of the current run done, 0 to 1; 0 when idle, offline or not yet counted. */
  static double progress(Agent agent, AgentDevice device) {
    if (!agent.online() || !device.busy() || device.completed() == null || device.total() == null
        || device.total() <= 0) {
      return 0;
    }
    return Math.min(1, Math.max(0, device.completed() / (double) device.total()));
  }

  /** What a device runs now, in words; an offline agent's last known run is not claimed as current. */
  static String now(Agent agent, AgentDevice device) {
    if (!agent.online()) {
      return "unreachable";
    }
    if (!device.busy()) {
      return "idle";
    }
    StringBuilder text = new StringBuilder("run ").append(device.runId());
    if (device.kernel() != null) {
      text.append(": ").append(device.kernel());
    }
    if (device.completed() != null && device.total() != null) {
      text.append(" (").append(device.completed()).append('/').append(device.total()).append(')');
    }
    return text.toString();
  }
}
