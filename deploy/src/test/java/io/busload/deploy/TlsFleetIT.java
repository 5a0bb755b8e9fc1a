package io.busload.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.testsupport.FleetCerts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The event bus's security on real processes from the bundle: certificates from the real {@code ./busload certs},
 * handed over as the units hand them ({@code BUSLOAD_TLS_DIR}). A coordinator and an agent of the fleet measure a
 * sweep over TLS; an agent holding another fleet's certificate runs beside them the whole time and never gets in.
 * Here the agents take the default way in: the coordinator's bridge, found through the cluster's members,
 * each agent under its certificate's name. {@link TlsFleetClusterIT} runs the same with the agents as members.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TlsFleetIT {
  static final Path WORK = Path.of("target", "tls-fleet");
  LocalFleet fleet;
  Path certs;

  @BeforeAll
  void start() throws Exception {
    Files.createDirectories(WORK);
    Path dir = Files.createTempDirectory(WORK, "fleet-");
    fleet = new LocalFleet(dir);
    certs = FleetCerts.issue(dir.resolve("certs"), "--coordinator", "c1@127.0.0.1", "--agent",
        fleet.agentId + "@127.0.0.1");
    Path other = FleetCerts.issue(dir.resolve("other"), "--agent", STRANGER + "@127.0.0.1");
    fleet.startCoordinator("coordinator", fleet.data, fleet.coordinatorPort, List.of(),
        FleetFaults.with(Map.of("BUSLOAD_TLS_DIR", certs.resolve("coordinator-c1").toString()), coordinatorEnv()));
    fleet.startCpuAgent("agent", fleet.agentId, dir.resolve("outbox"), List.of(),
        FleetFaults.with(Map.of("BUSLOAD_TLS_DIR", certs.resolve("agent-" + fleet.agentId).toString()), agentEnv()));
    fleet.startCpuAgent("stranger", STRANGER, dir.resolve("stranger-outbox"), List.of(),
        FleetFaults.with(Map.of("BUSLOAD_TLS_DIR", other.resolve("agent-" + STRANGER).toString()), agentEnv()));
  }

  static final String STRANGER = "stranger-agent";

  /** The coordinator's environment beyond its certificate: here the fleet's defaults (it serves the bridge). */
  Map<String, String> coordinatorEnv() {
    return Map.of();
  }

  /** Each agent's environment beyond its certificate: here the defaults (the bridge). */
  Map<String, String> agentEnv() {
    return Map.of();
  }

  /** What the agent logs when its link to the fleet is up with its certificate. */
  List<String> agentLogged() {
    return List.of("reaching the fleet through the agent bridge (mutual TLS) at [127.0.0.1:" + fleet.bridgePort + "]",
        "connected to the bridge at 127.0.0.1:" + fleet.bridgePort);
  }

  /** A line the stranger logs each time the fleet turns it away: here the TLS handshake with the bridge fails. */
  String strangerTurnedAway() {
    return "not reached (Failed to create SSL connection)";
  }

  @AfterAll
  void stop() throws Exception {
    if (fleet != null) {
      fleet.close();
    }
  }

  @Test
  void sweep_overTlsFromBusloadCerts_storedAndStrangerAgentNeverOnline() throws Exception {
    String deviceId = await("agent online over TLS", 150,
        () -> LocalFleet.onlineCpuDevice(fleet.json("/api/agents"), fleet.agentId));
    String sweepId = fleet.strideSweep(deviceId);
    JsonNode sweep = await("sweep done", 240, () -> fleet.sweepIfDone(sweepId));
    JsonNode results = fleet.json("/api/results?sweepId=" + sweepId);
    List<String> agents = new ArrayList<>();
    fleet.json("/api/agents")
        .forEach(a -> agents.add(a.path("agentId").asText()));

    assertThat(results.size()).isEqualTo(sweep.path("total").asInt()).isPositive();
    results.forEach(r -> assertThat(r.path("valid").asBoolean()).as(r.toString()).isTrue());
    assertThat(agents).contains(fleet.agentId).doesNotContain(STRANGER);
    assertThat(fleet.alive("stranger")).as("the stranger kept trying the whole time").isTrue();
    assertThat(fleet.log("coordinator")).contains("TLS, peers must present a fleet certificate")
        .contains("OU=coordinator");
    assertThat(fleet.log("agent")).contains(agentLogged());
    long unanswered = fleet.log("stranger").lines().filter(l -> l.contains(strangerTurnedAway())).count();
    assertThat(unanswered).isPositive();
    System.out.printf("TLS fleet from ./busload certs (%s): sweep of %d results stored, all valid; agents known to "
        + "the coordinator: %s; the agent with another fleet's certificate was turned away %d times ('%s') and is "
        + "not among them%n", getClass().getSimpleName(), results.size(), agents, unanswered, strangerTurnedAway());
  }


  private <T> T await(String what, int seconds, Callable<T> probe) throws Exception {
    return Poll.onFleet(fleet, Exception.class, List.of("coordinator", "agent")).until(what, seconds, probe);
  }
}
