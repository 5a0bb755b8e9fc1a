package io.busload.deploy;

import java.util.Map;

/**
 * {@link SplitBrainIT}'s split with both agents outside the cluster. Each agent holds a connection to the
 * bridge of its own half's coordinator (the other coordinator's bridge is its second choice), so the split divides
 * only the coordinators; after the heal the agent of the half that merged must measure again, its results reaching
 * the one leader through the relays of the coordinator it is connected to. Plain WebSockets between the namespaces,
 * as the split test's event bus is plain TCP (what is under test is the split, not TLS: {@link FaultsBridgeIT}).
 */
class SplitBrainBridgeIT extends SplitBrainIT {
  @Override
  String fault() {
    return "bridge-split-brain";
  }

  @Override
  Map<String, String> coordinatorEnv(int bridgePort) {
    return Map.of("BUSLOAD_BRIDGE_PORT", String.valueOf(bridgePort));
  }

  @Override
  Map<String, String> agentEnv(String ownIp, int ownBridge, String otherIp, int otherBridge) {
    return Map.of("BUSLOAD_BRIDGE", ownIp + ":" + ownBridge + "," + otherIp + ":" + otherBridge);
  }
}
