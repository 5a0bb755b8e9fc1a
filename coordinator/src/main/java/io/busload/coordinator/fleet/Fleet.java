package io.busload.coordinator.fleet;

import io.busload.coordinator.fleet.DeviceView.Activity;
import io.busload.coordinator.store.KnownAgent;
import io.busload.protocol.AgentHello;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.Heartbeat;
import io.busload.protocol.RunStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The agents and devices the coordinator knows, whether each agent is online, and what each device runs.
 *
 * <p>Not thread-safe on purpose: one verticle owns it and calls it from its event loop only. Time is passed
 * in, so tests need no sleeps.
 */
public final class Fleet {
  /** docs/contract.md: an agent is offline after 10 s without a heartbeat (it sends one every 2 s). */
  public static final Duration OFFLINE_AFTER = Duration.ofSeconds(10);

  private final Map<String, Agent> agents = new TreeMap<>();
  private final Map<String, String> agentOfDevice = new HashMap<>();

  private static final class Agent {
    String host;
    String agentVersion;
    Instant lastSeen;
    /** The agent's heartbeat clock minus ours at arrival; transit time (milliseconds) is part of it. */
    Duration clockOffset;
    boolean online;
    List<String> labels = List.of();
    final Map<String, DeviceInfo> devices = new TreeMap<>();
    final Map<String, Activity> activity = new HashMap<>();
  }

  /** An agent remembered from the store: known (sweeps may name its devices) but offline until it speaks. */
  public void remember(KnownAgent known) {
    Agent agent = agents.computeIfAbsent(known.agentId(), id -> new Agent());
    agent.host = known.host();
    agent.agentVersion = known.agentVersion();
    agent.lastSeen = known.lastSeen();
    agent.online = false;
    setDevices(known.agentId(), agent, known.devices());
  }

  /**
   * A hot standby's view of an agent, read from the store where the leader keeps each agent's last heartbeat
   * ({@link #heardSince}): online while that heartbeat is within {@link #OFFLINE_AFTER}. What its devices run is
   * not mirrored (the leader alone hears the heartbeats that say it).
   */
  public void mirror(KnownAgent known, Instant now) {
    Agent agent = agents.computeIfAbsent(known.agentId(), id -> new Agent());
    agent.host = known.host();
    agent.agentVersion = known.agentVersion();
    if (agent.lastSeen == null || known.lastSeen() != null && known.lastSeen().isAfter(agent.lastSeen)) {
      agent.lastSeen = known.lastSeen();
    }
    agent.online = agent.lastSeen != null && !agent.lastSeen.plus(OFFLINE_AFTER).isBefore(now);
    setDevices(known.agentId(), agent, known.devices());
  }

  /** The last heartbeat of every agent heard from after {@code since}, for the store (and so the standby). */
  public Map<String, Instant> heardSince(Instant since) {
    Map<String, Instant> heard = new TreeMap<>();
    agents.forEach((id, agent) -> {
      if (agent.online && agent.lastSeen != null && agent.lastSeen.isAfter(since)) {
        heard.put(id, agent.lastSeen);
      }
    });
    return heard;
  }

  /** An agent said hello: it is online, and its device list replaces what was known of it. */
  public void hello(AgentHello hello, Instant now) {
    Agent agent = agents.computeIfAbsent(hello.agentId(), id -> new Agent());
    agent.host = hello.host();
    agent.agentVersion = hello.agentVersion();
    agent.labels = hello.labels();
    agent.lastSeen = now;
    agent.online = true;
    setDevices(hello.agentId(), agent, hello.devices());
  }

  /**
   * The agent's devices become {@code devices}; one that another agent held (taken back into its owner's namespace,
   * see {@code AgentStore.saveAgent}) leaves that agent's list, so that no device is shown under two agents.
   */
  private void setDevices(String agentId, Agent agent, List<DeviceInfo> devices) {
    agent.devices.keySet().forEach(id -> agentOfDevice.remove(id, agentId));
    agent.devices.clear();
    for (DeviceInfo device : devices) {
      agent.devices.put(device.id(), device);
      String before = agentOfDevice.put(device.id(), agentId);
      Agent previous = before == null || before.equals(agentId) ? null : agents.get(before);
      if (previous != null) {
        previous.devices.remove(device.id());
        previous.activity.remove(device.id());
      }
    }
    agent.activity.keySet().retainAll(agent.devices.keySet());
  }

  /**
   * A heartbeat keeps a known agent online and tells what its devices run. Returns false for an agent
   * that never said hello: the contract answers those with nothing until they do.
   */
  public boolean heartbeat(Heartbeat heartbeat, Instant now) {
    Agent agent = agents.get(heartbeat.agentId());
    if (agent == null) {
      return false;
    }
    agent.lastSeen = now;
    agent.online = true;
    if (heartbeat.sentAt() != null) {
      agent.clockOffset = Duration.between(now, heartbeat.sentAt());
    }
    for (Heartbeat.DeviceState state : heartbeat.devices()) {
      if (agent.devices.containsKey(state.deviceId())) {
        agent.activity.put(state.deviceId(), state.runId() == null
            ? Activity.IDLE
            : new Activity(state.runId(), state.kernel(), state.completed(), state.total()));
      }
    }
    return true;
  }

  /** A run status is fresher than the last heartbeat; a finished run leaves its device idle. */
  public void status(RunStatus status) {
    Agent agent = agentOwning(status.deviceId());
    if (agent == null) {
      return;
    }
    switch (status.state()) {
      case DONE, FAILED, INTERRUPTED -> agent.activity.put(status.deviceId(), Activity.IDLE);
      case QUEUED, RUNNING -> {
        Activity before = agent.activity.getOrDefault(status.deviceId(), Activity.IDLE);
        String kernel = status.runId().equals(before.runId()) ? before.kernel() : null;
        agent.activity.put(status.deviceId(),
            new Activity(status.runId(), kernel, status.completed(), status.total()));
      }
    }
  }

  /** Marks agents silent for {@link #OFFLINE_AFTER} offline; returns those that just went offline. */
  public List<String> expire(Instant now) {
    List<String> gone = new ArrayList<>();
    agents.forEach((id, agent) -> {
      if (agent.online && agent.lastSeen.plus(OFFLINE_AFTER).isBefore(now)) {
        agent.online = false;
        agent.activity.clear();
        gone.add(id);
      }
    });
    return gone;
  }

  public Optional<Instant> lastSeen(String agentId) {
    return Optional.ofNullable(agents.get(agentId)).map(a -> a.lastSeen);
  }

  /** Online now, and heard from within {@link #OFFLINE_AFTER} (the expiry timer may not have run yet). */
  public boolean online(String agentId, Instant now) {
    Agent agent = agents.get(agentId);
    return agent != null && agent.online && !agent.lastSeen.plus(OFFLINE_AFTER).isBefore(now);
  }

  public boolean knowsDevice(String deviceId) {
    return agentOfDevice.containsKey(deviceId);
  }

  /** The agent that owns a device, if the device is known. */
  public Optional<String> agentOf(String deviceId) {
    return Optional.ofNullable(agentOfDevice.get(deviceId));
  }

  /** Devices of one agent, in id order. */
  public List<String> devicesOf(String agentId) {
    Agent agent = agents.get(agentId);
    return agent == null ? List.of() : List.copyOf(agent.devices.keySet());
  }

  /** Every known device, of online agents or not. */
  public List<String> devices() {
    return agentOfDevice.keySet().stream().sorted().toList();
  }

  /** Devices of the agents online now, in agent then device order. */
  public List<String> onlineDevices(Instant now) {
    List<String> devices = new ArrayList<>();
    agents.forEach((id, agent) -> {
      if (online(id, now)) {
        devices.addAll(agent.devices.keySet());
      }
    });
    return devices;
  }

  public List<AgentView> view(Instant now) {
    List<AgentView> views = new ArrayList<>();
    agents.forEach((id, agent) -> views.add(new AgentView(id, agent.host, agent.agentVersion, online(id, now),
        agent.lastSeen, agent.devices.values().stream()
            .map(d -> DeviceView.of(d, agent.activity.getOrDefault(d.id(), Activity.IDLE)))
            .toList(), agent.labels, agent.clockOffset)));
    return views;
  }

  /**
   * How far {@code agentId}'s clock was ahead of ours (negative: behind) at its last heartbeat to this coordinator;
   * empty until one arrives.
   */
  public Optional<Duration> clockOffset(String agentId) {
    Agent agent = agents.get(agentId);
    return agent == null ? Optional.empty() : Optional.ofNullable(agent.clockOffset);
  }

  private Agent agentOwning(String deviceId) {
    String agentId = agentOfDevice.get(deviceId);
    return agentId == null ? null : agents.get(agentId);
  }
}
