package io.busload.deploy;

import static io.busload.deploy.FaultsIT.SLOW_CASES;
import static io.busload.deploy.FaultsIT.SLOW_SWEEP;
import static io.busload.deploy.FaultsIT.outboxFiles;
import static io.busload.deploy.FaultsIT.summary;
import static io.busload.deploy.FaultsIT.sweep;
import static io.busload.deploy.FaultsIT.sweepView;
import static io.busload.deploy.FaultsIT.tally;
import static io.busload.deploy.FaultsIT.work;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.deploy.FaultsIT.Tally;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Issue 6, fault tests with the event bus on TLS: the coordinator kill and the 60 s network cut of
 * {@link FaultsIT}, with every process given its directory from the real {@code ./busload certs} through
 * {@code BUSLOAD_TLS_DIR}, as {@link TlsFleetIT} and the units do. Same counting and the same summary line as
 * {@link FaultsIT}: zero lost, zero duplicated, zero crashed.
 */
class FaultsTlsIT {
  private static final List<String> LOGS = List.of("coordinator", "agent");
  private LocalFleet fleet;
  private final List<AutoCloseable> cleanup = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    if (fleet != null) {
      fleet.close();
    }
    for (AutoCloseable c : cleanup.reversed()) {
      c.close();
    }
  }

  /** kill -9 of the coordinator mid-sweep with TLS on, restarted on the same certificate: everything once. */
  @Test
  void tls_killCoordinatorMidSweep_restarted_everyResultStoredOnce() throws Exception {
    Path work = work("tls-kill-coordinator");
    Path certs = TlsFleetIT.issue(work.resolve("certs"), "--coordinator", "c1@127.0.0.1", "--agent", "a1@127.0.0.1");
    Map<String, String> coordinatorTls = Map.of("BUSLOAD_TLS_DIR", certs.resolve("coordinator-c1").toString());
    fleet = new LocalFleet(work);
    Path outbox = fleet.data.resolveSibling("outbox");
    fleet.startCoordinator("coordinator", fleet.data, fleet.coordinatorPort, List.of(), coordinatorTls);
    fleet.startCpuAgent("agent", fleet.agentId, outbox, List.of(),
        Map.of("BUSLOAD_TLS_DIR", certs.resolve("agent-a1").toString()));
    FaultRest api = FaultRest.loopback(fleet.coordinatorPort);
    String device = FaultsIT.awaitCpuDevice(fleet, LOGS, api, fleet.agentId);
    String sweepId = sweep(api, device, SLOW_SWEEP);

    Tally atKill = await("5 results stored", 180, () -> {
      Tally t = tally(api, sweepId);
      return t.rows() >= 5 ? t : null;
    });
    fleet.kill("coordinator");
    Instant killed = Instant.now();
    assertThat(atKill.cases().size()).as("killed mid-sweep").isLessThan(SLOW_CASES);
    Thread.sleep(3_000);
    fleet.startCoordinator("coordinator", fleet.data, fleet.coordinatorPort, List.of(), coordinatorTls);

    JsonNode done = await("sweep done after the coordinator's restart", 300, () -> {
      JsonNode s = sweepView(api, sweepId);
      return "DONE".equals(s.path("state").asText()) ? s : null;
    });
    Duration toDone = Duration.between(killed, Instant.now());
    int total = done.path("total").asInt();
    Tally after = tally(api, sweepId);
    long measuredWhileDown = after.measuredAt().stream().filter(t -> t.isAfter(killed)).count();
    int lost = total - after.cases().size();
    int crashed = fleet.alive("agent") ? 0 : 1;
    int leftInOutbox = outboxFiles(outbox).size();
    String runState = done.path("runs").get(0).path("state").asText();
    summary("tls-kill-coordinator", total, after.rows(), lost, after.duplicated(), crashed,
        "TLS from ./busload certs; killed after " + atKill.rows() + " stored, restarted 3 s later; "
            + measuredWhileDown + " measured after the kill; run " + runState + " " + toDone.toSeconds()
            + " s after the kill; outbox left " + leftInOutbox);
    assertThat(fleet.log("coordinator")).contains("TLS, peers must present a fleet certificate");
    assertThat(fleet.log("agent")).contains("TLS, peers must present a fleet certificate");
    assertThat(total).isEqualTo(SLOW_CASES);
    assertThat(lost).isZero();
    assertThat(after.duplicated()).isZero();
    assertThat(crashed).isZero();
    assertThat(leftInOutbox).isZero();
    assertThat(runState).isEqualTo("DONE");
  }

  /**
   * The 60 s cut between two network namespaces with TLS on (certificates issued for the namespace addresses):
   * the agent keeps measuring, and after the heal the TLS connections come back and everything arrives once.
   */
  @Test
  void tls_networkCut60s_agentKeepsMeasuring_everythingArrivesAfterHeal() throws Exception {
    Optional<String> unavailable = NetnsPair.unavailable();
    if (unavailable.isPresent()) {
      System.out.println("fault tls-netns-cut: skipped: " + unavailable.get());
      Assumptions.abort(unavailable.get());
    }
    NetnsPair net = new NetnsPair();
    cleanup.add(net);
    net.create();
    Path work = work("tls-netns-cut");
    Path certs = TlsFleetIT.issue(work.resolve("certs"), "--coordinator", "c1@" + net.coordinatorIp, "--agent",
        "a1@" + net.agentIp);
    fleet = new LocalFleet(work);
    Path outbox = fleet.data.resolveSibling("outbox");
    fleet.startCoordinator("coordinator", fleet.data, fleet.coordinatorPort, NetnsPair.in(net.coordinatorNs),
        Map.of("BUSLOAD_CLUSTER_HOST", net.coordinatorIp, "BUSLOAD_CLUSTER_MEMBERS", net.coordinatorIp,
            "BUSLOAD_TLS_DIR", certs.resolve("coordinator-c1").toString()));
    fleet.startCpuAgent("agent", fleet.agentId, outbox, NetnsPair.in(net.agentNs),
        Map.of("BUSLOAD_CLUSTER_HOST", net.agentIp, "BUSLOAD_CLUSTER_MEMBERS", net.coordinatorIp,
            "BUSLOAD_TLS_DIR", certs.resolve("agent-a1").toString()));
    FaultRest api = FaultRest.inNamespace(net.coordinatorNs, fleet.coordinatorPort);
    String device = FaultsIT.awaitCpuDevice(fleet, LOGS, api, fleet.agentId);
    String sweepId = sweep(api, device, SLOW_SWEEP);
    Tally beforeCut = await("3 results stored", 180, () -> {
      Tally t = tally(api, sweepId);
      return t.rows() >= 3 ? t : null;
    });

    net.cut();
    Instant cut = Instant.now();
    Thread.sleep(60_000);
    int outboxAtHeal = outboxFiles(outbox).size();
    String stateDuringCut = sweepView(api, sweepId).path("runs").get(0).path("state").asText();
    net.heal();
    Instant healed = Instant.now();

    JsonNode done = await("sweep done after the link is back", 300, () -> {
      JsonNode s = sweepView(api, sweepId);
      return "DONE".equals(s.path("state").asText()) ? s : null;
    });
    Duration toArrive = Duration.between(healed, Instant.now());
    int total = done.path("total").asInt();
    Tally after = tally(api, sweepId);
    long measuredDuringCut = after.measuredAt().stream().filter(t -> t.isAfter(cut) && t.isBefore(healed)).count();
    int lost = total - after.cases().size();
    int crashed = (fleet.alive("coordinator") ? 0 : 1) + (fleet.alive("agent") ? 0 : 1);
    int leftInOutbox = outboxFiles(outbox).size();
    summary("tls-netns-cut", total, after.rows(), lost, after.duplicated(), crashed,
        "TLS from ./busload certs for " + net.coordinatorIp + " and " + net.agentIp + "; link down 60 s after "
            + beforeCut.rows() + " stored; " + measuredDuringCut + " measured during the cut, " + outboxAtHeal
            + " waiting in the outbox at heal; run " + stateDuringCut + " during the cut, "
            + done.path("runs").get(0).path("state").asText() + " " + toArrive.toSeconds() + " s after heal;"
            + " outbox left " + leftInOutbox);
    assertThat(fleet.log("coordinator")).contains("TLS, peers must present a fleet certificate");
    assertThat(fleet.log("agent")).contains("TLS, peers must present a fleet certificate");
    assertThat(measuredDuringCut).as("the agent kept measuring").isPositive();
    assertThat(outboxAtHeal).isPositive();
    assertThat(total).isEqualTo(SLOW_CASES);
    assertThat(lost).isZero();
    assertThat(after.duplicated()).isZero();
    assertThat(crashed).isZero();
    assertThat(leftInOutbox).isZero();
  }

  private <T> T await(String what, int seconds, Callable<T> probe) throws Exception {
    return FaultsIT.await(fleet, LOGS, what, seconds, probe);
  }
}
