package io.busload.deploy;

import java.util.List;
import java.util.Map;

/**
 * {@link TlsFleetIT} with the agents as cluster members ({@code BUSLOAD_TRANSPORT=cluster}, still
 * served) and the coordinator serving no bridge: the event bus's own TLS keeps the stranger out, and its hellos go
 * unanswered.
 */
class TlsFleetClusterIT extends TlsFleetIT {
  @Override
  Map<String, String> coordinatorEnv() {
    return Map.of("BUSLOAD_BRIDGE_PORT", "off");
  }

  @Override
  Map<String, String> agentEnv() {
    return Map.of("BUSLOAD_TRANSPORT", "cluster");
  }

  @Override
  List<String> agentLogged() {
    return List.of("TLS, peers must present a fleet certificate", "OU=agent");
  }

  @Override
  String strangerTurnedAway() {
    return "hello not acknowledged yet";
  }
}
