package io.busload.coordinator.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.coordinator.Coordinator;
import io.busload.coordinator.Fixtures;
import io.busload.coordinator.Http;
import io.busload.coordinator.api.RestApiTestSettings;
import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.RunRequest;
import io.busload.protocol.RunStatus;
import io.busload.testsupport.SettableClock;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Dispatch against an agent that refuses: the run fails with the agent's reason and the device moves on. */
class RunQueuesTest {
  private static final DeviceInfo GPU = Fixtures.gpu("rq-host", 0);

  @TempDir Path dir;

  @Test
  void dispatch_agentRefusesRun_runFailedWithReasonAndNextRunDispatched() throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      Coordinator coordinator = Coordinator.deploy(vertx, RestApiTestSettings.of(dir)).await(30, TimeUnit.SECONDS);
      Http http = new Http(coordinator.httpPort());
      BlockingQueue<RunRequest> asked = new LinkedBlockingQueue<>();
      BlockingQueue<RunStatus> live = new LinkedBlockingQueue<>();
      java.util.concurrent.atomic.AtomicInteger requests = new java.util.concurrent.atomic.AtomicInteger();
      vertx.eventBus().<RunStatus>consumer(Addresses.LIVE_RUNS, m -> live.add(m.body()));
      vertx.eventBus().<RunRequest>consumer(Addresses.agentRuns("rq-agent"), m -> {
        asked.add(m.body());
        m.reply(requests.incrementAndGet() == 1 ? Ack.refused(m.body().runId(), "device busy with a calibration")
            : Ack.ok(m.body().runId()));
      }).completion().await(10, TimeUnit.SECONDS);
      assertThat(vertx.eventBus().<Ack>request(Addresses.AGENT_HELLO, Fixtures.hello("rq-agent", GPU))
          .await(10, TimeUnit.SECONDS).body().ok()).isTrue();

      String refusedSweep = Http.json(http.post("/api/sweeps", "{\"suite\":\"stride\"}")).get("id").asText();
      String nextSweep = Http.json(http.post("/api/sweeps", "{\"suite\":\"stride\"}")).get("id").asText();

      RunRequest first = asked.poll(10, TimeUnit.SECONDS);
      RunRequest second = asked.poll(10, TimeUnit.SECONDS);
      assertThat(first).isNotNull();
      assertThat(first.sweepId()).isEqualTo(refusedSweep);
      assertThat(second).as("the device moves on to the next run").isNotNull();
      assertThat(second.sweepId()).isEqualTo(nextSweep);
      JsonNode refused = Http.json(http.get("/api/sweeps/" + refusedSweep));
      assertThat(refused.get("state").asText()).isEqualTo("FAILED");
      assertThat(refused.get("runs").get(0).get("message").asText())
          .isEqualTo("refused by agent rq-agent: device busy with a calibration");
      RunStatus published = live.poll(5, TimeUnit.SECONDS);
      assertThat(published).isNotNull();
      assertThat(published.state()).isEqualTo(RunStatus.State.FAILED);
      assertThat(published.runId()).isEqualTo(first.runId());
      awaitState(http, nextSweep, "RUNNING", Duration.ofSeconds(5));
    } finally {
      vertx.close().await(20, TimeUnit.SECONDS);
    }
  }

  /**
   * An agent that goes silent mid-run has its run INTERRUPTED once the heartbeat timeout passes (its
   * device is then free); when it returns still reporting that run, the device stays busy until the run reports,
   * and only then does the queue move on.
   */
  @Test
  void dispatch_agentSilentPastHeartbeatTimeout_runInterruptedQueueMovesOnWhenAgentReturns() throws Exception {
    Vertx vertx = Vertx.vertx();
    SettableClock clock = new SettableClock(Instant.now());
    try {
      Coordinator coordinator = Coordinator.deploy(vertx, RestApiTestSettings.of(dir), clock)
          .await(30, TimeUnit.SECONDS);
      Http http = new Http(coordinator.httpPort());
      BlockingQueue<RunRequest> asked = new LinkedBlockingQueue<>();
      vertx.eventBus().<RunRequest>consumer(Addresses.agentRuns("rq-agent"), m -> {
        asked.add(m.body());
        m.reply(Ack.ok(m.body().runId()));
      }).completion().await(10, TimeUnit.SECONDS);
      assertThat(vertx.eventBus().<Ack>request(Addresses.AGENT_HELLO, Fixtures.hello("rq-agent", GPU))
          .await(10, TimeUnit.SECONDS).body().ok()).isTrue();
      String lostSweep = Http.json(http.post("/api/sweeps", "{\"suite\":\"stride\"}")).get("id").asText();
      RunRequest first = asked.poll(10, TimeUnit.SECONDS);
      assertThat(first).isNotNull();
      awaitState(http, lostSweep, "RUNNING", Duration.ofSeconds(5));
      String nextSweep = Http.json(http.post("/api/sweeps", "{\"suite\":\"stride\"}")).get("id").asText();

      clock.advance(Fleet.OFFLINE_AFTER.minusSeconds(1));
      Thread.sleep(2_500);
      assertThat(Http.json(http.get("/api/sweeps/" + lostSweep)).get("runs").get(0).get("state").asText())
          .as("within the heartbeat timeout").isEqualTo("RUNNING");
      clock.advance(Duration.ofSeconds(2));
      JsonNode run = awaitRunState(http, lostSweep, "INTERRUPTED", Duration.ofSeconds(5));
      assertThat(run.get("message").asText()).contains("rq-agent offline");
      assertThat(asked.poll(2, TimeUnit.SECONDS)).as("no dispatch to an offline agent").isNull();

      // Back, and still measuring the interrupted run: its device is not free yet.
      vertx.eventBus().send(Addresses.AGENT_HEARTBEAT, Fixtures.heartbeat("rq-agent",
          new io.busload.protocol.Heartbeat.DeviceState(GPU.id(), first.runId(), "k", 3, 9)));
      assertThat(asked.poll(3, TimeUnit.SECONDS)).as("device still runs the interrupted run").isNull();
      RunStatus done = new RunStatus(io.busload.protocol.Protocol.SCHEMA_VERSION, first.runId(), lostSweep,
          "rq-agent", GPU.id(), RunStatus.State.DONE, 9, 9, null, clock.instant());
      assertThat(vertx.eventBus().<Ack>request(Addresses.RUN_STATUS, done).await(10, TimeUnit.SECONDS).body().ok())
          .isTrue();
      RunRequest second = asked.poll(10, TimeUnit.SECONDS);
      assertThat(second).as("the queue moves on once the returned agent's run reports").isNotNull();
      assertThat(second.sweepId()).isEqualTo(nextSweep);
      assertThat(Http.json(http.get("/api/sweeps/" + lostSweep)).get("state").asText()).isEqualTo("DONE");
    } finally {
      vertx.close().await(20, TimeUnit.SECONDS);
    }
  }

  private static JsonNode awaitRunState(Http http, String sweepId, String state, Duration patience)
      throws InterruptedException {
    Instant until = Instant.now().plus(patience);
    JsonNode last = null;
    while (Instant.now().isBefore(until)) {
      last = Http.json(http.get("/api/sweeps/" + sweepId)).get("runs").get(0);
      if (last.get("state").asText().equals(state)) {
        return last;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("run of sweep " + sweepId + " is " + last + ", expected " + state);
  }

  /** The accepted run turns RUNNING in the store just after its ack is handled, so this one polls. */
  private static void awaitState(Http http, String sweepId, String state, Duration patience) throws InterruptedException {
    Instant until = Instant.now().plus(patience);
    String last = null;
    while (Instant.now().isBefore(until)) {
      last = Http.json(http.get("/api/sweeps/" + sweepId)).get("state").asText();
      if (last.equals(state)) {
        return;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("sweep " + sweepId + " stayed " + last + ", expected " + state);
  }
}
