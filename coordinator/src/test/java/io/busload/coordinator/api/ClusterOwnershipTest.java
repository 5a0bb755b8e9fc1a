package io.busload.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.coordinator.Fixtures;
import io.busload.coordinator.Http;
import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.Heartbeat;
import io.busload.protocol.KernelResult;
import io.busload.protocol.Protocol;
import io.busload.protocol.RunRequest;
import io.busload.protocol.RunStatus;
import io.busload.testsupport.Await;
import io.busload.testsupport.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * On the event bus itself (the path of {@code BUSLOAD_TRANSPORT=cluster} agents, here a local bus) no certificate
 * says who a message is from: the agentId it claims is all there is, and the same ownership rules hold on it. An
 * agent "a2" cannot take a1's device, end or feed a1's run, or make a1's run look lost by reporting a1's device
 * idle in its own heartbeat.
 */
class ClusterOwnershipTest {
  private static final DeviceInfo GPU = Fixtures.gpu("h1", 0);
  private static final DeviceInfo OWN = Fixtures.gpu("h2", 0);

  private final SettableClock clock = new SettableClock(Instant.parse("2026-11-01T10:00:00Z"));
  @RegisterExtension final LocalCoordinator local = new LocalCoordinator(clock);

  @Test
  void agentClaimingAnothersDeviceRunOrIdleness_refusedCountedAndTheRunKeepsGoing() throws Exception {
    Map<String, RunRequest> asked = new ConcurrentHashMap<>();
    local.vertx().eventBus().<RunRequest>consumer(Addresses.agentRuns("a1"), m -> {
      asked.put(m.body().runId(), m.body());
      m.reply(Ack.ok(m.body().runId()));
    }).completion().await(10, TimeUnit.SECONDS);
    assertThat(local.request(Addresses.AGENT_HELLO, Fixtures.hello("a1", GPU)).ok()).isTrue();
    assertThat(local.request(Addresses.AGENT_HELLO, Fixtures.hello("a2", OWN)).ok()).isTrue();
    Http http = local.http();
    String sweepId = Http.json(http.post("/api/sweeps", "{\"suite\":\"stride\",\"devices\":[\"" + GPU.id() + "\"]}"))
        .get("id").asText();
    Await.until(() -> !asked.isEmpty(), Duration.ofSeconds(20), "a1 was asked to run");
    RunRequest run = asked.values().iterator().next();
    assertThat(local.request(Addresses.RUN_STATUS, Fixtures.status(run.runId(), sweepId, "a1", GPU.id(),
        RunStatus.State.RUNNING, 0, 2)).ok()).isTrue();

    Ack claim = local.request(Addresses.AGENT_HELLO, Fixtures.hello("a2", OWN, GPU));
    Ack done = local.request(Addresses.RUN_STATUS, Fixtures.status(run.runId(), sweepId, "a2", GPU.id(),
        RunStatus.State.DONE, 2, 2));
    Ack result = local.request(Addresses.RESULTS, Fixtures.result(sweepId, run.runId(), "a2", OWN, 1, true,
        clock.instant()));
    // a1 said nothing of its run for longer than a lost run is given; a2 reports a1's device idle.
    // In steps shorter than the offline limit, each with a heartbeat of a1's, so that a1 stays online throughout.
    for (int step = 0; step < 4; step++) {
      clock.advance(Duration.ofSeconds(8));
      local.vertx().eventBus().send(Addresses.AGENT_HEARTBEAT, new Heartbeat(Protocol.SCHEMA_VERSION, "a1",
          clock.instant(), List.of()));
      Thread.sleep(100);
    }
    local.vertx().eventBus().send(Addresses.AGENT_HEARTBEAT, new Heartbeat(Protocol.SCHEMA_VERSION, "a2",
        clock.instant(), List.of(new Heartbeat.DeviceState(GPU.id(), null, null, 0, 0),
            new Heartbeat.DeviceState(OWN.id(), null, null, 0, 0))));

    assertThat(claim.ok()).isTrue();
    assertThat(claim.reason()).contains(GPU.id());
    assertThat(done.ok()).isFalse();
    assertThat(done.reason()).contains("not assigned to agent a2");
    assertThat(result.ok()).isFalse();
    Await.until(() -> refused(http, "heartbeat_device") >= 1, Duration.ofSeconds(10), "a2's heartbeat counted");
    assertThat(refused(http, "device_owned")).isEqualTo(1);
    assertThat(refused(http, "run_not_assigned")).isEqualTo(1);
    assertThat(refused(http, "result_run")).isEqualTo(1);
    Thread.sleep(500);
    JsonNode agents = Http.json(http.get("/api/agents"));
    assertThat(agents.findValues("devices").stream().map(d -> d.findValuesAsText("id")).toList())
        .containsExactly(List.of(GPU.id()), List.of(OWN.id()));
    assertThat(Http.json(http.get("/api/sweeps/" + sweepId)).get("runs").findValuesAsText("state"))
        .containsExactly("RUNNING");

    KernelResult own = Fixtures.result(sweepId, run.runId(), "a1", GPU, 1, true, clock.instant());
    assertThat(local.request(Addresses.RESULTS, own).ok()).isTrue();
    assertThat(local.request(Addresses.RUN_STATUS, Fixtures.status(run.runId(), sweepId, "a1", GPU.id(),
        RunStatus.State.DONE, 1, 1)).ok()).isTrue();
    assertThat(Http.json(http.get("/api/results?device=" + GPU.id())).findValuesAsText("agentId"))
        .containsExactly("a1");
  }

  private static double refused(Http http, String reason) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile(
        "busload_agent_refused_total\\{reason=\"" + reason + "\"} ([0-9.E]+)").matcher(http.get("/metrics").body());
    return m.find() ? Double.parseDouble(m.group(1)) : 0;
  }
}
