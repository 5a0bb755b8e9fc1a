package io.busload.coordinator.store;

import static io.busload.coordinator.store.Database.instant;
import static io.busload.coordinator.store.Database.timestamp;

import io.busload.protocol.AgentHello;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.JsonCodec;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Agents and their devices as their hellos describe them, and when each agent was last heard from, so that a
 * restarted coordinator (or a standby) still knows the fleet's devices.
 */
public final class AgentStore {
  private final Database db;

  public AgentStore(Database db) {
    this.db = db;
  }

  /**
   * Remembers an agent and the devices of its hello that are its own, in one transaction, and returns the ids of
   * those it listed that another agent owns.
   *
   * <p>Device ids are {@code host/cuda:N}, and an agent's id is its host name unless {@code BUSLOAD_AGENT_ID} says
   * otherwise (on the bridge it is its certificate's name, which {@code ./busload up} issues to the host name). So a
   * device whose id is in the agent's namespace ({@code <agentId>/...}) is that agent's, taken back from any agent
   * that listed it first. Any other device belongs to the first agent that lists it and stays with it. Both bind to
   * the agent's name, not to its certificate's key, so a renewed certificate keeps its devices.
   */
  public List<String> saveAgent(AgentHello hello, Instant seenAt) {
    return db.inTransaction(c -> {
      Database.Binder agent = s -> {
        s.setString(1, hello.host());
        s.setString(2, hello.agentVersion());
        s.setString(3, hello.fatbinHash());
        s.setObject(4, timestamp(hello.startedAt()));
        s.setObject(5, timestamp(seenAt));
        s.setArray(6, c.createArrayOf("text", hello.labels().toArray()));
        s.setString(7, hello.agentId());
      };
      if (Database.update(c, "UPDATE agents SET host = ?, agent_version = ?, fatbin_hash = ?, started_at = ?,"
          + " last_seen = ?, labels = ? WHERE id = ?", agent) == 0) {
        Database.update(c, "INSERT INTO agents (host, agent_version, fatbin_hash, started_at, last_seen, labels, id)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?)", agent);
      }
      List<String> others = new ArrayList<>();
      for (DeviceInfo device : hello.devices()) {
        if (!saveDevice(c, hello.agentId(), device, seenAt, inNamespace(hello.agentId(), device.id()))) {
          others.add(device.id());
        }
      }
      return others;
    });
  }

  /** Whether {@code deviceId} is in the agent's own namespace, {@code <agentId>/...}. */
  public static boolean inNamespace(String agentId, String deviceId) {
    return deviceId.startsWith(agentId + "/");
  }

  /**
   * Stores the device as {@code agentId}'s; false, and nothing changed, where another agent owns it, unless
   * {@code own} (the device is in the agent's namespace).
   */
  private static boolean saveDevice(Connection c, String agentId, DeviceInfo device, Instant seenAt, boolean own)
      throws SQLException {
    String json = Database.json(device);
    Database.Binder binder = s -> bindDevice(s, agentId, device, json, seenAt);
    return Database.update(c, "INSERT INTO devices (agent_id, fingerprint, kind, name, info_json, last_seen, id)"
        + " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET agent_id = EXCLUDED.agent_id,"
        + " fingerprint = EXCLUDED.fingerprint, kind = EXCLUDED.kind, name = EXCLUDED.name,"
        + " info_json = EXCLUDED.info_json, last_seen = EXCLUDED.last_seen"
        + (own ? "" : " WHERE devices.agent_id = EXCLUDED.agent_id"), binder) == 1;
  }

  /** The agent owning each of {@code deviceIds} that is stored; an unknown device is absent. */
  public Map<String, String> owners(java.util.Collection<String> deviceIds) {
    if (deviceIds.isEmpty()) {
      return Map.of();
    }
    Map<String, String> owners = new java.util.HashMap<>();
    db.inTransaction(c -> Database.list(c, "SELECT id, agent_id FROM devices WHERE id = ANY(?)",
        s -> s.setArray(1, c.createArrayOf("text", deviceIds.toArray())),
        rs -> owners.put(rs.getString(1), rs.getString(2))));
    return owners;
  }

  private static void bindDevice(PreparedStatement s, String agentId, DeviceInfo device, String json, Instant seenAt)
      throws SQLException {
    s.setString(1, agentId);
    s.setString(2, device.fingerprint());
    s.setString(3, device.kind());
    s.setString(4, device.name());
    s.setString(5, json);
    s.setObject(6, timestamp(seenAt));
    s.setString(7, device.id());
  }

  /** Records when an agent was last heard from, so that a restarted coordinator can show it. */
  public void touchAgent(String agentId, Instant lastSeen) {
    touchAgents(Map.of(agentId, lastSeen));
  }

  /**
   * Records when each agent was last heard from, in one statement; a time older than the stored one is ignored,
   * so two coordinators (or a late write) never move it back.
   */
  public void touchAgents(Map<String, Instant> lastSeen) {
    if (lastSeen.isEmpty()) {
      return;
    }
    db.inTransaction(c -> {
      List<String> ids = List.copyOf(lastSeen.keySet());
      // Instants travel as ISO-8601 text (UTC, 'Z'), which PostgreSQL reads as timestamptz exactly.
      return Database.update(c, "UPDATE agents a SET last_seen = v.seen::timestamptz"
          + " FROM unnest(?::text[], ?::text[]) AS v(id, seen)"
          + " WHERE a.id = v.id AND (a.last_seen IS NULL OR a.last_seen < v.seen::timestamptz)", s -> {
            s.setArray(1, c.createArrayOf("text", ids.toArray()));
            s.setArray(2, c.createArrayOf("text", ids.stream().map(id -> lastSeen.get(id).toString()).toArray()));
          });
    });
  }

  /** Every agent ever seen, with its devices, ordered by id. */
  public List<KnownAgent> agents() {
    return db.inTransaction(c -> {
      Map<String, List<DeviceInfo>> devices = new LinkedHashMap<>();
      for (String[] row : Database.list(c, "SELECT agent_id, info_json FROM devices ORDER BY id", Database.Binder.NONE,
          rs -> new String[] {rs.getString(1), rs.getString(2)})) {
        devices.computeIfAbsent(row[0], k -> new ArrayList<>()).add(device(row[1]));
      }
      return Database.list(c, "SELECT id, host, agent_version, fatbin_hash, last_seen FROM agents ORDER BY id",
          Database.Binder.NONE, rs -> new KnownAgent(rs.getString(1), rs.getString(2), rs.getString(3),
              rs.getString(4), instant(rs, 5), devices.getOrDefault(rs.getString(1), List.of())));
    });
  }

  /** Every stored device with its agent, host and the host's labels, in id order. */
  public List<StoredDevice> devices() {
    return db.list("SELECT d.id, d.agent_id, a.host, d.name, d.fingerprint, d.info_json, d.last_seen, a.labels"
        + " FROM devices d JOIN agents a ON a.id = d.agent_id ORDER BY d.id", Database.Binder.NONE,
        rs -> new StoredDevice(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
            device(rs.getString(6)), instant(rs, 7), List.of((String[]) rs.getArray(8).getArray())));
  }

  private static DeviceInfo device(String json) {
    return JsonCodec.fromJson(json.getBytes(StandardCharsets.UTF_8), DeviceInfo.class);
  }
}
