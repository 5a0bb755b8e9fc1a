package io.busload.deploy;

import io.busload.testsupport.FleetCerts;
import java.nio.file.Path;
import java.util.Map;

/**
 * Fault tests with the event bus on TLS and the agent a cluster member: {@link KillAndCutFaults}' coordinator
 * kill and 60 s network cut,
 * with every process given its directory from the real {@code ./busload certs} through {@code BUSLOAD_TLS_DIR}, as
 * {@link TlsFleetIT} and the units do (certificates issued for the addresses the processes use: loopback, or the
 * namespaces' own). Same counting and the same summary line as {@link FaultsIT}: zero lost, zero duplicated, zero
 * crashed.
 */
class FaultsTlsIT extends KillAndCutFaults {
  @Override
  Transport transport(Path work, String coordinatorHost, String agentHost, String agentId) throws Exception {
    Path certs = FleetCerts.issue(work.resolve("certs"), "--coordinator", "c1@" + coordinatorHost, "--agent",
        "a1@" + agentHost);
    String where = coordinatorHost.equals(LOOPBACK) ? "" : " for " + coordinatorHost + " and " + agentHost;
    return new Transport(Map.of("BUSLOAD_TLS_DIR", certs.resolve("coordinator-c1").toString(),
            "BUSLOAD_BRIDGE_PORT", "off"),
        Map.of("BUSLOAD_TLS_DIR", certs.resolve("agent-a1").toString(), "BUSLOAD_TRANSPORT", "cluster"),
        "TLS from ./busload certs" + where + "; ",
        "TLS, peers must present a fleet certificate");
  }

  @Override
  String fault(String name) {
    return "tls-" + name;
  }
}
