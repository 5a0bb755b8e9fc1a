package io.busload.dashboard;

import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.AgentHello;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.Heartbeat;
import io.busload.protocol.KernelResult;
import io.busload.protocol.Protocol;
import io.busload.protocol.RunRequest;
import io.busload.protocol.RunStatus;
import io.vertx.core.Vertx;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One agent as docs/contract.md describes it, played by the test on a real event bus: hello until acked, a
 * heartbeat every second naming what each device runs and how far, run requests acked and queued for the test.
 */
public final class FleetDouble implements AutoCloseable {
  private final Vertx vertx;
  private final AgentHello hello;
  private final long heartbeats;
  private final Map<String, Heartbeat.DeviceState> running = new ConcurrentHashMap<>();
  public final BlockingQueue<RunRequest> requests = new LinkedBlockingQueue<>();

  public FleetDouble(Vertx vertx, String agentId, String host, List<DeviceInfo> devices) throws Exception {
    this(vertx, agentId, host, devices, List.of());
  }

  /** As above, the agent declaring host {@code labels} (BUSLOAD_LABELS). */
  public FleetDouble(Vertx vertx, String agentId, String host, List<DeviceInfo> devices, List<String> labels)
      throws Exception {
    this.vertx = vertx;
    this.hello = new AgentHello(Protocol.SCHEMA_VERSION, agentId, host, "0.1.0", "fatbin-1", devices, Instant.now(),
        labels);
    vertx.eventBus().<RunRequest>consumer(Addresses.agentRuns(agentId), message -> {
      requests.add(message.body());
      message.reply(Ack.ok(message.body().runId()));
    }).completion().await(20, TimeUnit.SECONDS);
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      try {
        if (vertx.eventBus().<Ack>request(Addresses.AGENT_HELLO, hello).await(5, TimeUnit.SECONDS).body().ok()) {
          break;
        }
      } catch (Exception e) {
        if (System.nanoTime() > until) {
          throw new AssertionError("no coordinator acked the hello", e);
        }
        Thread.sleep(200);
      }
    }
    heartbeats = vertx.setPeriodic(1000, id -> vertx.eventBus().send(Addresses.AGENT_HEARTBEAT, heartbeat()));
  }

  private Heartbeat heartbeat() {
    return new Heartbeat(Protocol.SCHEMA_VERSION, hello.agentId(), Instant.now(), hello.devices().stream()
        .map(d -> running.getOrDefault(d.id(), new Heartbeat.DeviceState(d.id(), null, null, 0, 0)))
        .toList());
  }

  public RunRequest nextRequest() throws InterruptedException {
    RunRequest request = requests.poll(60, TimeUnit.SECONDS);
    if (request == null) {
      throw new AssertionError("no run request for " + hello.agentId() + " within 60 s");
    }
    return request;
  }

  /** Reports progress as a running agent does, in its status and its heartbeats. */
  public Ack status(RunRequest run, RunStatus.State state, String kernel, int completed, int total) throws Exception {
    if (state == RunStatus.State.RUNNING) {
      running.put(run.deviceId(), new Heartbeat.DeviceState(run.deviceId(), run.runId(), kernel, completed, total));
    } else {
      running.remove(run.deviceId());
    }
    RunStatus status = new RunStatus(Protocol.SCHEMA_VERSION, run.runId(), run.sweepId(), hello.agentId(),
        run.deviceId(), state, completed, total, null, Instant.now());
    vertx.eventBus().send(Addresses.AGENT_HEARTBEAT, heartbeat());
    return vertx.eventBus().<Ack>request(Addresses.RUN_STATUS, status).await(10, TimeUnit.SECONDS).body();
  }

  public Ack result(KernelResult result) throws Exception {
    Ack ack = vertx.eventBus().<Ack>request(Addresses.RESULTS, result).await(10, TimeUnit.SECONDS).body();
    if (!ack.ok()) {
      throw new AssertionError("result refused: " + ack.reason());
    }
    return ack;
  }

  @Override
  public void close() {
    vertx.cancelTimer(heartbeats);
  }
}
