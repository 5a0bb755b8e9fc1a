package io.busload.simulator.fleet;

import io.busload.agent.cluster.Delivery;
import io.busload.agent.cluster.Outbox;
import io.busload.kernels.Catalog;
import io.busload.kernels.KernelCase;
import io.busload.kernels.SuiteOptions;
import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.AgentHello;
import io.busload.protocol.CacheResidency;
import io.busload.protocol.Clocks;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.Heartbeat;
import io.busload.protocol.KernelResult;
import io.busload.protocol.Protocol;
import io.busload.protocol.ResultStatus;
import io.busload.protocol.RunRequest;
import io.busload.protocol.RunStatus;
import io.busload.protocol.Sampling;
import io.busload.protocol.StopReason;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One simulated GPU host: says hello, beats every two seconds, takes run requests on its own address, "measures"
 * each kernel case by waiting, and delivers each result as the real agent does: into the agent's {@link Outbox}
 * (fsync) before the first send, through the agent's {@link Delivery} until an ack names it, then out of the outbox.
 * Many share one Vert.x; each is a verticle of its own, so its state stays on one event loop as the real agent's does.
 *
 * <p>Results are labelled simulated (device name and method), with samples drawn around a plausible bandwidth: they
 * exercise the store and the dashboard, they are no measurement.
 */
final class VirtualAgent extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(VirtualAgent.class);
  private static final Duration HEARTBEAT = Duration.ofSeconds(2);
  private static final Duration HELLO_RETRY = Duration.ofSeconds(2);
  private static final Duration HELLO_EVERY = Duration.ofSeconds(30);
  /** A simulated device's copy bandwidth, bytes per second (an H100's HBM3 moves about this much in a copy). */
  private static final double BANDWIDTH = 2.6e12;
  private static final int SAMPLES = 10;

  private final String agentId;
  private final List<DeviceInfo> devices;
  private final Path outboxDir;
  private final java.util.function.LongSupplier kernelMillis;
  private final Tally tally;
  private final Random random;
  private final List<Delivery> deliveries = new ArrayList<>();
  private final Set<String> accepted = new HashSet<>();
  /** What each device is doing, for heartbeats; a device runs one run at a time, queued in this chain. */
  private final Map<String, Heartbeat.DeviceState> state = new LinkedHashMap<>();
  private final Map<String, Future<Void>> deviceQueue = new HashMap<>();
  private Outbox outbox;
  private final java.util.function.Function<io.vertx.core.Vertx, io.busload.agent.cluster.FleetLink> links;
  /** This life's way to the coordinators: made on every start, closed by a crash. */
  private io.busload.agent.cluster.FleetLink link;
  private long heartbeatTimer = -1;
  private long helloTimer = -1;
  private boolean alive;
  /** Results measured are kept on disk but not sent: the host's link is gone just before the host dies. */
  private volatile boolean holding;
  private boolean helloAcked;

  /** @param links the agent's way to the coordinators (the cluster it shares, or a bridge connection of its own) */
  VirtualAgent(int index, int deviceCount, Path outboxRoot, java.util.function.LongSupplier kernelMillis,
      Tally tally, java.util.function.Function<io.vertx.core.Vertx, io.busload.agent.cluster.FleetLink> links) {
    this.links = links;
    this.agentId = idOf(index);
    this.outboxDir = outboxRoot.resolve(agentId);
    this.kernelMillis = kernelMillis;
    this.tally = tally;
    this.random = new Random(index);
    List<DeviceInfo> list = new ArrayList<>();
    String host = agentId + ".sim";
    for (int d = 0; d < deviceCount; d++) {
      // Stable per index, so that a restarted agent is the same host with the same devices.
      String uuid = new UUID(0x5151_0000_0000_0000L | index, d).toString();
      list.add(new DeviceInfo(host + "/cuda:" + d, DeviceInfo.CUDA, "Simulated H100 80GB HBM3 (busload simulate)",
          "GPU-" + uuid, "9.0", 132, 50L << 20, 80L << 30, 2_619_000_000L, 5120, 3.35e12, "simulated"));
    }
    this.devices = List.copyOf(list);
    devices.forEach(d -> state.put(d.id(), new Heartbeat.DeviceState(d.id(), null, null, 0, 0)));
  }

  String agentId() {
    return agentId;
  }

  /** Agent {@code index}'s id, the name its certificate is issued to. */
  static String idOf(int index) {
    return String.format("sim-%04d", index);
  }

  List<DeviceInfo> devices() {
    return devices;
  }

  /** Opens the outbox (resending what it holds, as a restarted agent does), listens, says hello, beats. */
  @Override
  public Future<?> start() {
    alive = true;
    helloAcked = false;
    return vertx.executeBlocking(() -> {
      Outbox opened = Outbox.open(outboxDir);
      return Map.entry(opened, opened.pending());
    }, false).compose(opened -> {
      link = links.apply(vertx);
      outbox = opened.getKey();
      if (!opened.getValue().isEmpty()) {
        Delivery drain = delivery();
        opened.getValue().forEach(r -> deliver(drain, r));
      }
      return link.serveRuns(agentId, this::onRun);
    }).onSuccess(v -> {
      hello();
      // Spread over the period, as a thousand hosts booted at different times would be.
      vertx.setTimer(1 + random.nextInt((int) HEARTBEAT.toMillis()), t -> {
        if (alive) {
          heartbeatTimer = vertx.setPeriodic(HEARTBEAT.toMillis(), id -> heartbeat());
        }
      });
    });
  }

  /**
   * Dies as a host that loses power does: no word to anyone, measuring stops, and whatever was measured but not
   * acked stays in the outbox for the next start.
   */
  Future<Void> crash() {
    io.vertx.core.Promise<Void> crashed = io.vertx.core.Promise.promise();
    context.runOnContext(v -> crashHere().onComplete(crashed));
    return crashed.future();
  }

  private Future<Void> crashHere() {
    alive = false;
    vertx.cancelTimer(heartbeatTimer);
    vertx.cancelTimer(helloTimer);
    deliveries.forEach(Delivery::close);
    deliveries.clear();
    accepted.clear();
    deviceQueue.clear();
    devices.forEach(d -> state.put(d.id(), new Heartbeat.DeviceState(d.id(), null, null, 0, 0)));
    return link == null ? Future.succeededFuture() : link.close();
  }

  /**
   * From now on results stay in the outbox unsent, as on a host whose network went down before it lost power: what
   * the outbox is for. {@link #crash} then leaves them there for the next start.
   */
  void holdResults() {
    holding = true;
  }

  /** Results this agent's outbox holds now (a blocking directory read: not on an event loop). */
  int pendingInOutbox() {
    try (var files = java.nio.file.Files.list(outboxDir)) {
      return (int) files.filter(f -> f.getFileName().toString().endsWith(".json")).count();
    } catch (java.io.IOException e) {
      return 0;
    }
  }

  private void hello() {
    if (!alive) {
      return;
    }
    AgentHello hello = new AgentHello(Protocol.SCHEMA_VERSION, agentId, agentId + ".sim", "simulated", "simulated",
        devices, Instant.now(), List.of("simulated", "rack=" + (agentId.hashCode() & 15)));
    link.request(Addresses.AGENT_HELLO, hello, 5_000)
        .onComplete(reply -> {
          boolean ok = reply.succeeded() && reply.result().ok();
          if (ok && !helloAcked) {
            tally.helloAcks.incrementAndGet();
          }
          helloAcked = helloAcked || ok;
          if (alive) {
            helloTimer = vertx.setTimer((ok ? HELLO_EVERY : HELLO_RETRY).toMillis(), t -> hello());
          }
        });
  }

  private void heartbeat() {
    if (!alive) {
      return;
    }
    tally.heartbeats.incrementAndGet();
    link.send(Addresses.AGENT_HEARTBEAT,
        new Heartbeat(Protocol.SCHEMA_VERSION, agentId, Instant.now(), List.copyOf(state.values())));
  }

  private void onRun(RunRequest request, java.util.function.Consumer<Ack> answer) {
    if (!accepted.add(request.runId())) {
      tally.repeatedRequests.incrementAndGet();
      answer.accept(Ack.ok(request.runId()));
      return;
    }
    if (!state.containsKey(request.deviceId())) {
      answer.accept(Ack.refused(request.runId(), "unknown device '" + request.deviceId() + "'"));
      return;
    }
    List<KernelCase> cases;
    try {
      cases = Catalog.cases(request.suite(), SuiteOptions.parse(request.suiteOptions()));
    } catch (IllegalArgumentException e) {
      answer.accept(Ack.refused(request.runId(), e.getMessage()));
      return;
    }
    tally.runTaken(request.sweepId(), request.runId());
    answer.accept(Ack.ok(request.runId()));
    Delivery delivery = delivery();
    Future<Void> before = deviceQueue.getOrDefault(request.deviceId(), Future.succeededFuture());
    Future<Void> run = before.transform(x -> measure(request, cases, 0, delivery));
    deviceQueue.put(request.deviceId(), run);
  }

  /** Measures case {@code i} onwards, one kernel time apart, as a device worker would. */
  private Future<Void> measure(RunRequest request, List<KernelCase> cases, int i, Delivery delivery) {
    if (!alive) {
      return Future.succeededFuture();
    }
    if (i == cases.size()) {
      state.put(request.deviceId(), new Heartbeat.DeviceState(request.deviceId(), null, null, 0, 0));
      status(delivery, request, RunStatus.State.DONE, cases.size(), cases.size());
      return Future.succeededFuture();
    }
    KernelCase kernelCase = cases.get(i);
    state.put(request.deviceId(), new Heartbeat.DeviceState(request.deviceId(), request.runId(),
        kernelCase.spec().name(), i, cases.size()));
    status(delivery, request, RunStatus.State.RUNNING, i, cases.size());
    Promise<Void> measured = Promise.promise();
    vertx.setTimer(Math.max(1, kernelMillis.getAsLong()), t -> {
      if (!alive) {
        measured.complete();
        return;
      }
      KernelResult result = result(request, kernelCase);
      // On disk before the first send (fsync blocks: off the event loop), as the agent does.
      vertx.executeBlocking(() -> {
        outbox.put(result);
        return null;
      }, false).onComplete(put -> {
        if (put.failed()) {
          LOG.error("{}: cannot write result to the outbox: {}", agentId, put.cause().toString());
        } else {
          // On disk is measured: the store must end up with it, even if this host dies before the first send.
          tally.made(request.sweepId(), result.id());
          if (alive && !holding) {
            deliver(delivery, result);
            // As the agent does: a status after each result, so the coordinator sees the same traffic.
            status(delivery, request, RunStatus.State.RUNNING, i + 1, cases.size());
          }
        }
        measured.complete();
      });
    });
    return measured.future().compose(v -> measure(request, cases, i + 1, delivery));
  }

  KernelResult result(RunRequest request, KernelCase kernelCase) {
    DeviceInfo device = devices.stream().filter(d -> d.id().equals(request.deviceId())).findFirst().orElseThrow();
    long bytesRead = kernelCase.params().getOrDefault("elements", 1L << 26) * 4;
    long bytes = 2 * bytesRead;
    double median = bytes / (BANDWIDTH * (0.7 + 0.2 * random.nextDouble()));
    List<Double> samples = new ArrayList<>(SAMPLES);
    for (int s = 0; s < SAMPLES; s++) {
      samples.add(median * (1 + 0.004 * random.nextGaussian()));
    }
    double min = samples.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
    double max = samples.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
    List<Double> sorted = samples.stream().sorted().toList();
    double med = (sorted.get(SAMPLES / 2 - 1) + sorted.get(SAMPLES / 2)) / 2;
    Map<String, Object> params = new LinkedHashMap<>(kernelCase.params());
    return KernelResult.builder().id(UUID.randomUUID()).runId(request.runId()).sweepId(request.sweepId())
        .agentId(agentId).agentVersion("simulated").fatbinHash("simulated").device(device).suite(request.suite())
        .kernel(kernelCase.spec().name()).params(params).valid(true).mismatches(List.of()).medianSeconds(med)
        .minSeconds(min).maxSeconds(max).relativeSpread((max - min) / med).samples(samples).launchesPerSample(100)
        .warmupLaunches(20).bytesRead(bytesRead).bytesWritten(bytesRead).bytes(bytes).bandwidth(bytes / med)
        .method("simulated by busload simulate (no device): samples drawn around a plausible bandwidth")
        .measuredAt(Instant.now()).status(ResultStatus.MEASURED).sampling(sampling(device, bytes)).build();
  }

  /**
   * The sampling record the real agent sends with every measured result, so that simulated results fill
   * the same columns and pass the same checks: every sample held behind the blocking kernel, stopped by a settled
   * spread (the drawn samples spread 0.4%), the working set (input and output buffers) against the simulated L2.
   * No clocks are invented: a simulated device has none to read, and says so.
   */
  private static Sampling sampling(DeviceInfo device, long workingSetBytes) {
    return new Sampling(SAMPLES, 0, 0, StopReason.SPREAD_SETTLED,
        Clocks.notRead("simulated device (busload simulate): no NVML to read"),
        CacheResidency.of(workingSetBytes, device.l2Bytes(), false));
  }

  private void deliver(Delivery delivery, KernelResult result) {
    long sent = System.nanoTime();
    delivery.enqueue(Addresses.RESULTS, result, result.id().toString(), true)
        .compose(acked -> {
          tally.acked(result.sweepId(), result.id(), System.nanoTime() - sent);
          return vertx.executeBlocking(() -> outbox.remove(result.id()), false);
        })
        .onFailure(e -> LOG.warn("{}: result {} not delivered: {}", agentId, result.id(), e.toString()));
  }

  private void status(Delivery delivery, RunRequest request, RunStatus.State s, int completed, int total) {
    delivery.enqueue(Addresses.RUN_STATUS, new RunStatus(Protocol.SCHEMA_VERSION, request.runId(), request.sweepId(),
        agentId, request.deviceId(), s, completed, total, null, Instant.now()), request.runId() + " " + s, false);
  }

  private Delivery delivery() {
    Delivery delivery = new Delivery(vertx, link, Duration.ofSeconds(10));
    deliveries.add(delivery);
    return delivery;
  }
}
