package io.busload.deploy;

import io.busload.testsupport.FleetCerts;
import java.nio.file.Path;
import java.util.Map;

/**
 * The fault tests with the agent outside the cluster: all five of {@link FaultsIT} (the coordinator kill
 * and the 60 s network cut of {@link KillAndCutFaults}, the agent kill, the leader kill with two coordinators, the
 * PostgreSQL restart), the agent holding one mutual-TLS connection to a coordinator's event-bus bridge
 * ({@code BUSLOAD_BRIDGE}), certificates from the real {@code ./busload certs} (the agent's issued under its agent
 * id, which the bridge checks every message against). The agent never joins Hazelcast. Same counting and summary
 * line as {@link FaultsIT}: zero lost, zero duplicated, zero crashed.
 */
class FaultsBridgeIT extends FaultsIT {
  @Override
  Transport transport(Path work, String coordinatorHost, String agentHost, String agentId) throws Exception {
    Path certs = FleetCerts.issue(work.resolve("certs"), "--coordinator", "c1@" + coordinatorHost + ",c2@"
        + coordinatorHost, "--agent", agentId + "@" + agentHost);
    int bridgePort = LocalFleet.freePort();
    int secondPort = LocalFleet.freePort();
    String where = coordinatorHost.equals(LOOPBACK) ? "" : " for " + coordinatorHost + " and " + agentHost;
    // A second coordinator (the failover fault) has a bridge of its own; the agent is given both, in that order.
    return new Transport(
        Map.of("BUSLOAD_TLS_DIR", certs.resolve("coordinator-c1").toString(),
            "BUSLOAD_BRIDGE_PORT", String.valueOf(bridgePort)),
        Map.of("BUSLOAD_TLS_DIR", certs.resolve("coordinator-c2").toString(),
            "BUSLOAD_BRIDGE_PORT", String.valueOf(secondPort)),
        Map.of("BUSLOAD_TLS_DIR", certs.resolve("agent-" + agentId).toString(),
            "BUSLOAD_BRIDGE", coordinatorHost + ":" + bridgePort + "," + coordinatorHost + ":" + secondPort),
        "agent through the bridge, mutual TLS from ./busload certs" + where + "; ", "agent bridge (mutual TLS)");
  }

  @Override
  String fault(String name) {
    return "bridge-" + name;
  }
}
