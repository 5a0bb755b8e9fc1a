package io.busload.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.coordinator.api.RestApiTestSettings;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.KernelResult;
import io.busload.protocol.RunRequest;
import io.busload.protocol.RunStatus;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A coordinator stopped and started again on the same data directory forgets nothing it acked. */
class RestartTest {
  private static final DeviceInfo GPU = Fixtures.gpu("rs-host", 0);

  @TempDir Path dir;

  @Test
  void restart_sameDataDir_keepsResultsSweepsAgentsAndTheBusyDevice() throws Exception {
    List<KernelResult> acked = new ArrayList<>();
    String sweepA;
    String sweepB;
    RunRequest runA;

    CoordinatorSettings settings = RestApiTestSettings.of(dir);
    Vertx first = Vertx.vertx();
    try {
      Coordinator coordinator = Coordinator.deploy(first, settings).await(30, TimeUnit.SECONDS);
      Http http = new Http(coordinator.httpPort());
      try (AgentDouble agent = new AgentDouble(first, Fixtures.hello("rs-agent", GPU))) {
        sweepA = Http.json(http.post("/api/sweeps", "{\"suite\":\"stride\"}")).get("id").asText();
        sweepB = Http.json(http.post("/api/sweeps", "{\"suite\":\"stride\"}")).get("id").asText();
        runA = agent.nextRequest(Duration.ofSeconds(10));
        assertThat(agent.status(runA, RunStatus.State.RUNNING, 0, 5).ok()).isTrue();
        for (int i = 0; i < 5; i++) {
          KernelResult result = Fixtures.result(sweepA, runA.runId(), "rs-agent", GPU, 1L << i, true, Instant.now());
          assertThat(agent.result(result).ok()).isTrue();
          acked.add(result);
        }
      }
      coordinator.stop().await(20, TimeUnit.SECONDS);
    } finally {
      first.close().await(20, TimeUnit.SECONDS);
    }

    Vertx second = Vertx.vertx();
    try {
      Coordinator coordinator = Coordinator.deploy(second, settings).await(30, TimeUnit.SECONDS);
      Http http = new Http(coordinator.httpPort());

      JsonNode results = Http.json(http.get("/api/results"));
      assertThat(results).hasSize(5);
      List<String> ids = new ArrayList<>();
      results.forEach(r -> ids.add(r.get("id").asText()));
      assertThat(ids).containsExactlyInAnyOrderElementsOf(acked.stream().map(r -> r.id().toString()).toList());
      assertThat(Http.json(http.get("/api/sweeps"))).hasSize(2);
      assertThat(Http.json(http.get("/api/sweeps/" + sweepA)).get("state").asText()).isEqualTo("RUNNING");
      JsonNode agents = Http.json(http.get("/api/agents"));
      assertThat(agents.get(0).get("agentId").asText()).isEqualTo("rs-agent");
      assertThat(agents.get(0).get("online").asBoolean()).as("not heard from since the restart").isFalse();

      try (AgentDouble agent = new AgentDouble(second, Fixtures.hello("rs-agent", GPU))) {
        // The GPU still runs sweep A's run: sweep B must wait for it, restart or not.
        assertThat(agent.requests.poll(2, TimeUnit.SECONDS)).isNull();
        assertThat(agent.status(runA, RunStatus.State.DONE, 5, 5).ok()).isTrue();
        RunRequest runB = agent.nextRequest(Duration.ofSeconds(10));
        assertThat(runB.sweepId()).isEqualTo(sweepB);
      }
      assertThat(Http.json(http.get("/api/sweeps/" + sweepA)).get("state").asText()).isEqualTo("DONE");
      coordinator.stop().await(20, TimeUnit.SECONDS);
    } finally {
      second.close().await(20, TimeUnit.SECONDS);
    }
  }
}
