package io.busload.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.AgentHello;
import io.busload.protocol.Heartbeat;
import io.busload.protocol.KernelResult;
import io.busload.protocol.Protocol;
import io.busload.protocol.RunRequest;
import io.busload.protocol.RunStatus;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.ReplyException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The agent's side of docs/contract.md, played by the test over a real event bus: hello until acked,
 * heartbeats every second naming what each device runs, run requests acked at once and queued here for
 * the test to act on.
 */
public final class AgentDouble implements AutoCloseable {
  private final Vertx vertx;
  private final AgentHello hello;
  private final long heartbeats;
  /** How far this agent's clock is off the true time: its heartbeats say that time. */
  private final Duration clockError;
  private final Map<String, String> running = new ConcurrentHashMap<>();
  public final BlockingQueue<RunRequest> requests = new LinkedBlockingQueue<>();

  public AgentDouble(Vertx vertx, AgentHello hello) throws Exception {
    this(vertx, hello, Duration.ZERO);
  }

  /** An agent whose clock reads {@code clockError} ahead of the true time (negative: behind). */
  public AgentDouble(Vertx vertx, AgentHello hello, Duration clockError) throws Exception {
    this.vertx = vertx;
    this.hello = hello;
    this.clockError = clockError;
    vertx.eventBus().<RunRequest>consumer(Addresses.agentRuns(hello.agentId()), message -> {
      requests.add(message.body());
      running.put(message.body().deviceId(), message.body().runId());
      message.reply(Ack.ok(message.body().runId()));
    }).completion().await(20, TimeUnit.SECONDS);
    sayHello(Duration.ofSeconds(30));
    heartbeats = vertx.setPeriodic(1000, id -> vertx.eventBus().send(Addresses.AGENT_HEARTBEAT, heartbeat()));
  }

  /** Retries as the contract says an agent does, until the coordinator acks. */
  private void sayHello(Duration patience) throws Exception {
    Instant until = Instant.now().plus(patience);
    while (true) {
      try {
        Ack ack = vertx.eventBus().<Ack>request(Addresses.AGENT_HELLO, hello).await(5, TimeUnit.SECONDS).body();
        if (ack.ok()) {
          return;
        }
      } catch (ReplyException | java.util.concurrent.TimeoutException e) {
        if (Instant.now().isAfter(until)) {
          throw new AssertionError("no coordinator acked the hello", e);
        }
        Thread.sleep(200);
      }
    }
  }

  private Heartbeat heartbeat() {
    return new Heartbeat(Protocol.SCHEMA_VERSION, hello.agentId(), Instant.now().plus(clockError), hello.devices().stream()
        .map(d -> new Heartbeat.DeviceState(d.id(), running.get(d.id()), null, 0, 0))
        .toList());
  }

  public RunRequest nextRequest(Duration patience) throws InterruptedException {
    RunRequest request = requests.poll(patience.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(request).as("a run request within " + patience).isNotNull();
    return request;
  }

  public Ack status(RunRequest run, RunStatus.State state, int completed, int total) throws Exception {
    if (state == RunStatus.State.DONE || state == RunStatus.State.FAILED) {
      running.remove(run.deviceId(), run.runId());
    }
    RunStatus status = new RunStatus(Protocol.SCHEMA_VERSION, run.runId(), run.sweepId(), hello.agentId(),
        run.deviceId(), state, completed, total, state == RunStatus.State.FAILED ? "kernel crashed" : null,
        Instant.now());
    return vertx.eventBus().<Ack>request(Addresses.RUN_STATUS, status).await(10, TimeUnit.SECONDS).body();
  }

  public Ack result(KernelResult result) throws Exception {
    return vertx.eventBus().<Ack>request(Addresses.RESULTS, result).await(10, TimeUnit.SECONDS).body();
  }

  public List<String> devices() {
    return hello.devices().stream().map(d -> d.id()).toList();
  }

  @Override
  public void close() {
    vertx.cancelTimer(heartbeats);
  }
}
