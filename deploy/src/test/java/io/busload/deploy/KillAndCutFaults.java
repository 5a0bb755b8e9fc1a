package io.busload.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The two fault tests that run once per event-bus transport (they were copied): a kill -9 of the
 * coordinator mid-sweep, and a 60 s network cut between two network namespaces. {@link FaultsIT} runs them on plain
 * TCP, {@link FaultsTlsIT} with every process given its directory from the real {@code ./busload certs}, and
 * {@link FaultsBridgeIT} with the agent outside the cluster, through the coordinator's bridge. Each demands
 * zero results lost, zero duplicated and zero processes crashed, and prints one summary line.
 */
abstract class KillAndCutFaults extends FleetFaults {
  static final String LOOPBACK = "127.0.0.1";

  /**
   * The extra environment of the coordinator, of a second coordinator where a test starts two (the agent's
   * environment names both where that matters: the bridge), and of the agent; how the summary line names the
   * transport, and what both processes log about their event bus.
   */
  record Transport(Map<String, String> coordinator, Map<String, String> second, Map<String, String> agent,
      String description, String logged) {
    Transport(Map<String, String> coordinator, Map<String, String> agent, String description, String logged) {
      this(coordinator, coordinator, agent, description, logged);
    }
  }

  /**
   * The transport for a coordinator reached at {@code coordinatorHost} and agent {@code agentId} at {@code agentHost};
   * certificates it needs go under {@code work}.
   */
  abstract Transport transport(Path work, String coordinatorHost, String agentHost, String agentId) throws Exception;

  /** The fault's name in the summary line and the work directory ({@code kill-coordinator}). */
  abstract String fault(String name);

  @Override
  List<String> logs() {
    return List.of("coordinator", "leader", "follower", "agent");
  }

  /** What {@link #startOnLoopback} started: the transport, the agent's outbox, the REST API and the CPU device. */
  record OnLoopback(Transport transport, Path outbox, FaultRest api, String device) {}

  /** A coordinator and a CPU agent on loopback under this class's transport, once the agent's device is online. */
  OnLoopback startOnLoopback(String fault) throws Exception {
    Path work = work(fault);
    fleet = new LocalFleet(work);
    Transport transport = transport(work, LOOPBACK, LOOPBACK, fleet.agentId);
    Path outbox = fleet.data.resolveSibling("outbox");
    fleet.startCoordinator("coordinator", fleet.data, fleet.coordinatorPort, List.of(), transport.coordinator());
    fleet.startCpuAgent("agent", fleet.agentId, outbox, List.of(), transport.agent());
    FaultRest api = FaultRest.loopback(fleet.coordinatorPort);
    return new OnLoopback(transport, outbox, api, awaitCpuDevice(api, fleet.agentId));
  }

  /** Fault 1: kill -9 the coordinator in the middle of a sweep, restart it: every result arrives exactly once. */
  @Test
  void killCoordinatorMidSweep_restarted_everyResultStoredOnce() throws Exception {
    String fault = fault("kill-coordinator");
    OnLoopback started = startOnLoopback(fault);
    Transport transport = started.transport();
    Path outbox = started.outbox();
    FaultRest api = started.api();
    String sweepId = sweep(api, started.device(), SLOW_SWEEP);

    Tally atKill = awaitStored(api, sweepId, 5);
    fleet.kill("coordinator");
    Instant killed = Instant.now();
    assertThat(atKill.cases().size()).as("killed mid-sweep").isLessThan(SLOW_CASES);
    Thread.sleep(3_000);
    fleet.startCoordinator("coordinator", fleet.data, fleet.coordinatorPort, List.of(), transport.coordinator());

    JsonNode done = awaitDone(api, sweepId, "sweep done after the coordinator's restart");
    Duration toDone = Duration.between(killed, Instant.now());
    // The run's total is the agent's plan (the options' 30 strides and the ceiling), reported with its statuses.
    int total = done.path("total").asInt();
    Tally after = tally(api, sweepId);
    long measuredWhileDown = after.measuredAt().stream().filter(t -> t.isAfter(killed)).count();
    int lost = total - after.cases().size();
    int crashed = fleet.alive("agent") ? 0 : 1;
    int leftInOutbox = outboxFiles(outbox).size();
    String runState = done.path("runs").get(0).path("state").asText();
    summary(fault, total, after.rows(), lost, after.duplicated(), crashed,
        transport.description() + "killed after " + atKill.rows() + " stored, restarted 3 s later; "
            + measuredWhileDown + " measured after the kill; run " + runState + " " + toDone.toSeconds()
            + " s after the kill; outbox left " + leftInOutbox);
    assertThat(fleet.log("coordinator")).contains(transport.logged());
    assertThat(fleet.log("agent")).contains(transport.logged());
    assertThat(total).isEqualTo(SLOW_CASES);
    assertThat(lost).isZero();
    assertThat(after.duplicated()).isZero();
    assertThat(crashed).isZero();
    assertThat(leftInOutbox).isZero();
    assertThat(runState).isEqualTo("DONE");
  }

  /**
   * Fault 3: the agent's host loses its link to the coordinator's host for 60 s (two network namespaces joined by a
   * veth pair; the agent's end is taken down). The agent keeps measuring; everything arrives after the link is
   * back, and the run ends DONE.
   */
  @Test
  void networkCut60s_agentKeepsMeasuring_everythingArrivesAfterHeal() throws Exception {
    String fault = fault("netns-cut");
    Optional<String> unavailable = NetnsPair.unavailable();
    if (unavailable.isPresent()) {
      System.out.println("fault " + fault + ": skipped: " + unavailable.get());
      Assumptions.abort(unavailable.get());
    }
    NetnsPair net = new NetnsPair();
    cleanup.add(net);
    net.create();
    Path work = work(fault);
    fleet = new LocalFleet(work);
    Transport transport = transport(work, net.coordinatorIp, net.agentIp, fleet.agentId);
    Path outbox = fleet.data.resolveSibling("outbox");
    fleet.startCoordinator("coordinator", fleet.data, fleet.coordinatorPort, NetnsPair.in(net.coordinatorNs),
        with(transport.coordinator(), "BUSLOAD_CLUSTER_HOST", net.coordinatorIp, "BUSLOAD_CLUSTER_MEMBERS",
            net.coordinatorIp));
    fleet.startCpuAgent("agent", fleet.agentId, outbox, NetnsPair.in(net.agentNs),
        with(transport.agent(), "BUSLOAD_CLUSTER_HOST", net.agentIp, "BUSLOAD_CLUSTER_MEMBERS", net.coordinatorIp));
    FaultRest api = FaultRest.inNamespace(net.coordinatorNs, fleet.coordinatorPort);
    String device = awaitCpuDevice(api, fleet.agentId);
    String sweepId = sweep(api, device, SLOW_SWEEP);
    Tally beforeCut = awaitStored(api, sweepId, 3);

    net.cut();
    Instant cut = Instant.now();
    Thread.sleep(60_000);
    int outboxAtHeal = outboxFiles(outbox).size();
    String stateDuringCut = sweepView(api, sweepId).path("runs").get(0).path("state").asText();
    net.heal();
    Instant healed = Instant.now();

    JsonNode done = awaitDone(api, sweepId, "sweep done after the link is back");
    Duration toArrive = Duration.between(healed, Instant.now());
    int total = done.path("total").asInt();
    Tally after = tally(api, sweepId);
    long measuredDuringCut = after.measuredAt().stream().filter(t -> t.isAfter(cut) && t.isBefore(healed)).count();
    int lost = total - after.cases().size();
    int crashed = (fleet.alive("coordinator") ? 0 : 1) + (fleet.alive("agent") ? 0 : 1);
    int leftInOutbox = outboxFiles(outbox).size();
    summary(fault, total, after.rows(), lost, after.duplicated(), crashed,
        transport.description() + "link down 60 s after " + beforeCut.rows() + " stored; " + measuredDuringCut
            + " measured during the cut, " + outboxAtHeal + " waiting in the outbox at heal; run " + stateDuringCut
            + " during the cut, " + done.path("runs").get(0).path("state").asText() + " " + toArrive.toSeconds()
            + " s after heal; outbox left " + leftInOutbox);
    assertThat(fleet.log("coordinator")).contains(transport.logged());
    assertThat(fleet.log("agent")).contains(transport.logged());
    assertThat(measuredDuringCut).as("the agent kept measuring").isPositive();
    assertThat(outboxAtHeal).isPositive();
    assertThat(total).isEqualTo(SLOW_CASES);
    assertThat(lost).isZero();
    assertThat(after.duplicated()).isZero();
    assertThat(crashed).isZero();
    assertThat(leftInOutbox).isZero();
  }

  /** {@code env} and the given key-value pairs. */
  private static Map<String, String> with(Map<String, String> env, String... keysAndValues) {
    Map<String, String> all = new HashMap<>(env);
    for (int i = 0; i < keysAndValues.length; i += 2) {
      all.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return all;
  }
}
