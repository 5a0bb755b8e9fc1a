package io.busload.simulator.fleet;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import io.busload.protocol.JsonCodec;
import io.busload.agent.cluster.BridgeLink;
import io.busload.agent.cluster.BridgeSettings;
import io.busload.agent.cluster.ClusterLink;
import io.busload.agent.cluster.FleetLink;
import io.busload.protocol.bridge.BridgeClient;
import io.busload.protocol.cluster.Cluster;
import io.busload.protocol.cluster.ClusterSettings;
import io.busload.protocol.cluster.FleetTls;
import io.busload.protocol.pki.FleetCa;
import io.vertx.core.http.WebSocketClientOptions;
import io.busload.simulator.os.ChildJvm;
import io.busload.simulator.os.ProcStats;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.apache.commons.math3.stat.regression.SimpleRegression;

/**
 * One coordinator, embedded PostgreSQL, and {@code agents} virtual agents of {@code devices} devices each: all
 * online, steady under heartbeats, a sweep to every device, then a sweep during which a tenth of the agents drop at
 * once and come back. Every result an agent measured is looked for in the store afterwards, by id.
 */
public final class FleetRun implements AutoCloseable {
  /**
   * Options, resolved once.
   *
   * @param kernelTime how long a simulated kernel case takes in the first sweep
   * @param dropKernelTime the same in the drop sweep, long enough that runs are in flight when agents drop
   */
  public record Options(int agents, int devices, Duration steady, String suite, Map<String, String> suiteOptions,
      Duration kernelTime, Duration dropKernelTime, double dropFraction, String coordinatorHeap, int basePort,
      int httpPort, Path workDir, Transport transport, Security security) {
    public Options {
      if (transport == Transport.CLUSTER && security == Security.MUTUAL_TLS) {
        throw new IllegalArgumentException("mutual TLS is the bridge's: the cluster transport runs plain on loopback");
      }
    }

    /** Without a transport: agents share the simulator's cluster member, as with {@code BUSLOAD_TRANSPORT=cluster}. */
    public Options(int agents, int devices, Duration steady, String suite, Map<String, String> suiteOptions,
        Duration kernelTime, Duration dropKernelTime, double dropFraction, String coordinatorHeap, int basePort,
        int httpPort, Path workDir) {
      this(agents, devices, steady, suite, suiteOptions, kernelTime, dropKernelTime, dropFraction, coordinatorHeap,
          basePort, httpPort, workDir, Transport.CLUSTER, Security.PLAIN);
    }
  }

  /**
   * How the virtual agents reach the coordinator: all through the one cluster member this process is, or each
   * with a WebSocket of its own to the coordinator's bridge (the default transport), as a thousand agent hosts would.
   */
  public enum Transport { CLUSTER, BRIDGE }

  /**
   * The bridge's connections: plain WebSockets, or mutual TLS as real agents use it, each virtual agent with a
   * certificate of its own (CN its agent id, OU agent) from a fleet CA made for the run, and the coordinator with
   * one of its own ({@code BUSLOAD_TLS_DIR}). The cluster transport is always plain (one member on loopback).
   */
  public enum Security { PLAIN, MUTUAL_TLS }

  /**
   * What the run measured.
   *
   * @param certificates what issuing the bridge's certificates took, before any measured window; null when plain
   */
  public record Figures(FleetFigures.Certificates certificates, FleetFigures.Online online,
      FleetFigures.Steady steady, FleetFigures.Sweep sweep, FleetFigures.Drop drop) {}

  private final Options options;
  private final PrintStream log;
  private final Tally tally = new Tally();
  private final AtomicLong kernelMillis = new AtomicLong();
  private final List<VirtualAgent> agents = new ArrayList<>();
  private CoordinatorProcess coordinator;
  private Vertx vertx;
  /** An agent's way to the coordinator, by agent id (with TLS, each has its own certificate). */
  private java.util.function.BiFunction<String, Vertx, FleetLink> links;

  public FleetRun(Options options, PrintStream log) {
    this.options = options;
    this.log = log;
  }

  public Figures run() throws Exception {
    Files.createDirectories(options.workDir());
    String cluster = "busload-fleet-sim-" + UUID.randomUUID().toString().substring(0, 8);
    log.printf("starting a coordinator (embedded PostgreSQL) in %s%n", options.workDir());
    int bridgePort = options.transport() == Transport.BRIDGE ? options.httpPort() + 1 : -1;
    FleetFigures.Certificates certificates = null;
    Map<String, WebSocketClientOptions> agentTls = Map.of();
    Path coordinatorTls = null;
    if (options.security() == Security.MUTUAL_TLS) {
      IssuedFleet issued = issue(options.agents(), options.workDir().resolve("tls"));
      certificates = issued.figures();
      agentTls = issued.agents();
      coordinatorTls = issued.coordinatorDir();
      log.printf("issued fleet %s's CA, the coordinator's certificate and %d agent certificates in %.2f s%n",
          certificates.fleetId(), certificates.agentCertificates(), certificates.seconds());
    }
    coordinator = CoordinatorProcess.start(options.workDir(), cluster, options.basePort(), options.httpPort(),
        bridgePort, coordinatorTls, options.coordinatorHeap());
    connect(cluster, bridgePort, agentTls);
    FleetFigures.Online online = online();
    log.println(online);
    FleetFigures.Steady steady = steady();
    log.println(steady);
    kernelMillis.set(options.kernelTime().toMillis());
    FleetFigures.Sweep sweep = sweep("sweep to every device", null);
    log.println(sweep);
    FleetFigures.Drop drop = drop();
    log.println(drop);
    return new Figures(certificates, online, steady, sweep, drop);
  }

  /**
   * Sets how the virtual agents reach the coordinator: over the bridge, each agent its own WebSocket (with its own
   * client certificate where {@code agentTls} has one), or as the one cluster member they all share.
   */
  private void connect(String cluster, int bridgePort, Map<String, WebSocketClientOptions> agentTls)
      throws java.util.concurrent.TimeoutException {
    if (options.transport() == Transport.BRIDGE) {
      // Not a member at all: every virtual agent holds its own connection to the bridge.
      vertx = Vertx.vertx();
      List<BridgeClient.Endpoint> bridge = List.of(new BridgeClient.Endpoint("127.0.0.1", bridgePort));
      links = (agentId, v) -> new BridgeLink(new BridgeClient(v, bridge,
          new WebSocketClientOptions(agentTls.getOrDefault(agentId, new WebSocketClientOptions())),
          BridgeSettings.PING)).start();
    } else {
      // Every virtual agent shares this one member: membership is measured apart (simulate membership).
      vertx = Cluster.start(new ClusterSettings(cluster, "127.0.0.1", null, options.basePort() + 1, 0,
          List.of("127.0.0.1:" + options.basePort()), ClusterSettings.AGENT)).await(3, TimeUnit.MINUTES);
      links = (agentId, v) -> new ClusterLink(v, false);
    }
  }

  /** Results' time from the agent's first send to the coordinator's ack (which follows the commit), in seconds. */
  record Latency(int results, double p50, double p99, double max) {
    static Latency of(java.util.Collection<Long> nanos) {
      long[] sorted = nanos.stream().mapToLong(Long::longValue).sorted().toArray();
      if (sorted.length == 0) {
        return new Latency(0, Double.NaN, Double.NaN, Double.NaN);
      }
      return new Latency(sorted.length, at(sorted, 0.50), at(sorted, 0.99), sorted[sorted.length - 1] / 1e9);
    }

    /** The nearest-rank quantile. */
    private static double at(long[] sorted, double q) {
      return sorted[Math.max(0, (int) Math.ceil(q * sorted.length) - 1)] / 1e9;
    }
  }

  /** One sweep of the flood benchmark: what was stored and lost, the ack latency, and what the flood saw. */
  record FloodPhase(FleetFigures.Sweep sweep, Latency latency, Flood.Seen flood) {}

  record FloodFigures(FleetFigures.Online online, List<Map.Entry<String, String>> questions, FloodPhase quiet,
      FloodPhase flooded) {}

  /**
   * The flood benchmark: every agent online, a warm-up sweep, a sweep to every device with nothing else going on, then the same sweep
   * again while {@code plan}'s flood runs (from {@link Flood#SOURCE}), both in this one run on this one coordinator.
   */
  FloodFigures flood(Flood.Plan plan) throws Exception {
    Files.createDirectories(options.workDir());
    String cluster = "busload-flood-sim-" + UUID.randomUUID().toString().substring(0, 8);
    int bridgePort = options.transport() == Transport.BRIDGE ? options.httpPort() + 1 : -1;
    log.printf("starting a coordinator (embedded PostgreSQL) in %s%n", options.workDir());
    coordinator = CoordinatorProcess.start(options.workDir(), cluster, options.basePort(), options.httpPort(),
        bridgePort, null, options.coordinatorHeap());
    connect(cluster, bridgePort, Map.of());
    FleetFigures.Online online = online();
    log.println(online);
    kernelMillis.set(options.kernelTime().toMillis());
    // The first sweep of a fresh coordinator is slower for reasons of its own (JIT, the month's partition, every
    // agent's first lanes): it warms up, unmeasured, so that the two measured sweeps differ only by the flood.
    log.println(sweep("warm-up sweep to every device (not measured)", null));
    FleetFigures.Sweep quiet = sweep("sweep to every device, no flood", null);
    FloodPhase quietPhase = new FloodPhase(quiet, Latency.of(tally.ackNanos.getOrDefault(quiet.sweepId(),
        new java.util.ArrayDeque<>())), null);
    log.println(quiet);
    log.println(quietPhase.latency());
    // The questions a History view would ask of what the fleet has now measured: every device has a series.
    Set<Map.Entry<String, String>> cases = new java.util.LinkedHashSet<>();
    for (JsonNode r : coordinator.get("/api/results?sweepId=" + quiet.sweepId() + "&limit=200")) {
      Map<String, Object> params = JsonCodec.MAPPER.convertValue(r.path("params"),
          new com.fasterxml.jackson.core.type.TypeReference<Map<String, Object>>() {});
      String text = new TreeMap<>(params).entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
          .collect(java.util.stream.Collectors.joining(";"));
      // A case without parameters (the memcpy ceiling) cannot be asked about: the resource needs params.
      if (!text.isEmpty()) {
        cases.add(Map.entry(r.path("kernel").asText(), text));
      }
    }
    List<Map.Entry<String, String>> questions = List.copyOf(cases);
    log.printf("flood: %d reader(s) of the annotations of %s, %d slow and %d idle connection(s) per port, from %s%n",
        plan.readers(), questions, plan.slow(), plan.idle(), Flood.SOURCE);
    FleetFigures.Sweep flooded;
    Flood.Seen seen;
    try (Flood flood = new Flood(plan, options.httpPort(), bridgePort, questions)) {
      flood.start();
      // The flood settles in (readers queued, slow connections held) before the sweep starts.
      Thread.sleep(5_000);
      flooded = sweep("sweep to every device, under the flood", null);
      seen = flood.seen();
    }
    FloodPhase floodedPhase = new FloodPhase(flooded, Latency.of(tally.ackNanos.getOrDefault(flooded.sweepId(),
        new java.util.ArrayDeque<>())), seen);
    log.println(flooded);
    log.println(floodedPhase.latency());
    log.println(seen);
    return new FloodFigures(online, questions, quietPhase, floodedPhase);
  }

  /**
   * The bridge's certificates for a run.
   *
   * @param coordinatorDir the coordinator's member directory, as {@code ./busload certs} writes it
   * @param agents each virtual agent's client options: its own key and certificate, the coordinator CA trusted
   */
  record IssuedFleet(Path coordinatorDir, Map<String, WebSocketClientOptions> agents,
      FleetFigures.Certificates figures) {}

  /**
   * A fleet CA, the coordinator's certificate (for 127.0.0.1 and localhost, as the agents' host check needs) written
   * to {@code dir}, and one agent certificate per virtual agent, held in memory; timed, outside every measured window.
   */
  static IssuedFleet issue(int agentCount, Path dir) throws java.io.IOException {
    long start = System.nanoTime();
    FleetCa ca = FleetCa.create();
    Path coordinatorDir = FleetCa.write(ca.issue("coordinator", "sim-coordinator", List.of("localhost", "127.0.0.1")),
        dir);
    Map<String, WebSocketClientOptions> agents = new java.util.HashMap<>();
    for (int i = 0; i < agentCount; i++) {
      String agentId = VirtualAgent.idOf(i);
      FleetCa.Member member = ca.issue("agent", agentId, List.of());
      agents.put(agentId, FleetTls.bridgeClient(new WebSocketClientOptions(), member.keyCertOptions(),
          member.trustOptions()));
    }
    return new IssuedFleet(coordinatorDir, Map.copyOf(agents),
        new FleetFigures.Certificates(ca.fleetId(), agentCount, (System.nanoTime() - start) / 1e9));
  }

  private FleetFigures.Online online() throws Exception {
    ProcStats jvm0 = coordinator.jvm();
    long start = System.nanoTime();
    List<Future<String>> started = new ArrayList<>();
    for (int i = 0; i < options.agents(); i++) {
      VirtualAgent agent = newAgent(i);
      agents.add(agent);
      started.add(vertx.deployVerticle(agent));
    }
    Future.all(started).await(5, TimeUnit.MINUTES);
    int expected = options.agents() * options.devices();
    await("all agents online", Duration.ofMinutes(10), () -> onlineDevices() == expected);
    return new FleetFigures.Online(options.agents(), expected, (System.nanoTime() - start) / 1e9,
        coordinator.jvm().cpuSeconds() - jvm0.cpuSeconds(), ProcStats.loadAverage());
  }

  /** Agent {@code i}, the same host (id, devices, outbox, certificate) on every start. */
  private VirtualAgent newAgent(int i) {
    String agentId = VirtualAgent.idOf(i);
    return new VirtualAgent(i, options.devices(), options.workDir().resolve("outboxes"), () -> kernelMillis.get(),
        tally, v -> links.apply(agentId, v));
  }

  private int onlineDevices() {
    try {
      int devices = 0;
      for (JsonNode agent : coordinator.get("/api/agents")) {
        if (agent.path("online").asBoolean()) {
          devices += agent.path("devices").size();
        }
      }
      return devices;
    } catch (Exception e) {
      return -1;
    }
  }

  private FleetFigures.Steady steady() throws Exception {
    double load0 = ProcStats.loadAverage();
    double up0 = coordinator.uptimeSeconds();
    ProcStats jvm0 = coordinator.jvm();
    ProcStats pg0 = coordinator.postgres();
    long beats0 = tally.heartbeats.get();
    long start = System.nanoTime();
    long end = start + options.steady().toNanos();
    while (System.nanoTime() < end) {
      Thread.sleep(Math.min(30_000, Math.max(1, (end - System.nanoTime()) / 1_000_000)));
      log.printf("steady: %.0f s of %d, coordinator %.0f MiB RSS, load %.2f%n", (System.nanoTime() - start) / 1e9,
          options.steady().toSeconds(), coordinator.jvm().rssBytes() / 1048576.0, ProcStats.loadAverage());
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    ProcStats jvm1 = coordinator.jvm();
    ProcStats pg1 = coordinator.postgres();
    double up1 = coordinator.uptimeSeconds();
    List<CoordinatorProcess.HeapAfterGc> gcs = coordinator.heapAfterGc().stream()
        .filter(g -> g.uptimeSeconds() >= up0 && g.uptimeSeconds() <= up1).toList();
    double fifth = (up1 - up0) / 5;
    SimpleRegression slope = new SimpleRegression();
    gcs.forEach(g -> slope.addData(g.uptimeSeconds() / 60, g.bytes()));
    return new FleetFigures.Steady(seconds, (jvm1.cpuSeconds() - jvm0.cpuSeconds()) / seconds,
        (pg1.cpuSeconds() - pg0.cpuSeconds()) / seconds, jvm1.rssBytes(), gcs.size(),
        ChildJvm.median(gcs.stream().filter(g -> g.uptimeSeconds() <= up0 + fifth).map(g -> g.bytes()).toList()),
        ChildJvm.median(gcs.stream().filter(g -> g.uptimeSeconds() >= up1 - fifth).map(g -> g.bytes()).toList()),
        gcs.size() >= 2 ? slope.getSlope() : Double.NaN, (tally.heartbeats.get() - beats0) / seconds, load0,
        ProcStats.loadAverage());
  }

  /** A sweep to every device; {@code midway} (may be null) runs once every run request is taken. */
  private FleetFigures.Sweep sweep(String label, Midway midway) throws Exception {
    ProcStats jvm0 = coordinator.jvm();
    ProcStats pg0 = coordinator.postgres();
    long start = System.nanoTime();
    JsonNode created = coordinator.post("/api/sweeps", Map.of("suite", options.suite(), "options",
        options.suiteOptions(), "devices", List.of("all")));
    String sweepId = created.path("id").asText();
    int runs = options.agents() * options.devices();
    await("every run request taken", Duration.ofMinutes(5), () -> tally.runsTaken(sweepId) >= runs);
    double dispatch = (tally.lastRequestAt.getOrDefault(sweepId, start) - start) / 1e9;
    log.printf("%s: %d of %d run requests taken in %.2f s%n", label, tally.runsTaken(sweepId), runs, dispatch);
    if (midway != null) {
      midway.run(sweepId);
    }
    Set<String> finished = Set.of("DONE", "FAILED", "INTERRUPTED");
    await("every run finished", Duration.ofMinutes(15), () -> runStates(sweepId).entrySet().stream()
        .filter(e -> !finished.contains(e.getKey())).mapToInt(Map.Entry::getValue).sum() == 0);
    // An ack comes only after the commit; the store is then read once, by id.
    await("every result measured acked", Duration.ofMinutes(10), () -> tally.allAcked(sweepId));
    double stored = (System.nanoTime() - start) / 1e9;
    double seconds = (System.nanoTime() - start) / 1e9;
    ProcStats jvm1 = coordinator.jvm();
    ProcStats pg1 = coordinator.postgres();
    Stored all = storedIds(sweepId);
    Set<UUID> made = tally.made(sweepId);
    Set<UUID> missing = new HashSet<>(made);
    missing.removeAll(all.ids());
    return new FleetFigures.Sweep(label, sweepId, runs, tally.runsTaken(sweepId), dispatch, made.size(), all.rows(),
        missing.size(), all.rows() - all.ids().size(), stored, all.rows() / stored, runStates(sweepId),
        (jvm1.cpuSeconds() - jvm0.cpuSeconds()) / seconds, (pg1.cpuSeconds() - pg0.cpuSeconds()) / seconds,
        ProcStats.loadAverage());
  }

  private interface Midway {
    void run(String sweepId) throws Exception;
  }

  private FleetFigures.Drop drop() throws Exception {
    kernelMillis.set(options.dropKernelTime().toMillis());
    int count = Math.max(1, (int) Math.round(options.agents() * options.dropFraction()));
    List<Integer> dropped = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      dropped.add((int) ((long) i * options.agents() / count));
    }
    Set<String> droppedIds = new HashSet<>();
    dropped.forEach(i -> droppedIds.add(agents.get(i).agentId()));
    dropped.forEach(i -> agents.get(i).holdResults());
    double[] toOffline = {Double.NaN};
    double[] backOnline = {Double.NaN};
    Map<String, Integer> droppedStates = new TreeMap<>();
    int[] resent = {0};
    FleetFigures.Sweep sweep = sweep("sweep with " + count + " agents dropped and back", sweepId -> {
      // Midway: each run has measured its first case (a kernel time has passed) and is on its next; the agents
      // about to drop hold what they measured, unsent, in their outboxes.
      Thread.sleep(options.dropKernelTime().toMillis() * 3 / 2);
      long dropAt = System.nanoTime();
      Future.all(dropped.stream().map(i -> agents.get(i).crash()).toList()).await(1, TimeUnit.MINUTES);
      log.printf("dropped %d agents at once%n", count);
      await("dropped agents offline", Duration.ofMinutes(2), () -> offline(droppedIds) == droppedIds.size());
      toOffline[0] = (System.nanoTime() - dropAt) / 1e9;
      // The coordinator interrupts a run when its agent has been silent past the offline limit.
      await("dropped agents' runs ended", Duration.ofMinutes(2),
          () -> runsOf(sweepId, droppedIds).getOrDefault("RUNNING", 0) == 0);
      droppedStates.putAll(runsOf(sweepId, droppedIds));
      log.printf("dropped agents' runs: %s; bringing them back%n", droppedStates);
      long back = System.nanoTime();
      List<Future<String>> restarted = new ArrayList<>();
      for (int i : dropped) {
        VirtualAgent again = newAgent(i);
        resent[0] += again.pendingInOutbox();
        agents.set(i, again);
        restarted.add(vertx.deployVerticle(again));
      }
      Future.all(restarted).await(2, TimeUnit.MINUTES);
      int all = options.agents() * options.devices();
      await("all agents back online", Duration.ofMinutes(3), () -> onlineDevices() == all);
      backOnline[0] = (System.nanoTime() - back) / 1e9;
    });
    return new FleetFigures.Drop(count, toOffline[0], droppedStates, resent[0], backOnline[0], sweep);
  }

  private int offline(Set<String> ids) {
    try {
      int n = 0;
      for (JsonNode agent : coordinator.get("/api/agents")) {
        if (ids.contains(agent.path("agentId").asText()) && !agent.path("online").asBoolean()) {
          n++;
        }
      }
      return n;
    } catch (Exception e) {
      return -1;
    }
  }

  private Map<String, Integer> runStates(String sweepId) {
    return runsOf(sweepId, null);
  }

  /** Runs of the sweep by state; only those on devices of {@code agentIds} unless it is null. */
  private Map<String, Integer> runsOf(String sweepId, Set<String> agentIds) {
    Map<String, Integer> states = new TreeMap<>();
    try {
      for (JsonNode run : coordinator.get("/api/sweeps/" + sweepId).path("runs")) {
        String device = run.path("deviceId").asText();
        String agent = device.substring(0, device.indexOf('.'));
        if (agentIds == null || agentIds.contains(agent)) {
          states.merge(run.path("state").asText(), 1, Integer::sum);
        }
      }
    } catch (Exception e) {
      states.put("unreadable: " + e.getMessage(), 1);
    }
    return states;
  }

  private record Stored(int rows, Set<UUID> ids) {}

  private Stored storedIds(String sweepId) {
    Set<UUID> ids = new HashSet<>();
    int rows = 0;
    try (InputStream body = coordinator.stream("/api/results?sweepId=" + sweepId + "&limit=1000000");
        JsonParser parser = JsonCodec.MAPPER.createParser(body)) {
      if (parser.nextToken() != JsonToken.START_ARRAY) {
        throw new IllegalStateException("/api/results: not a JSON array");
      }
      while (parser.nextToken() == JsonToken.START_OBJECT) {
        JsonNode result = parser.readValueAsTree();
        ids.add(UUID.fromString(result.path("id").asText()));
        rows++;
      }
    } catch (Exception e) {
      log.printf("cannot read the stored results of %s: %s%n", sweepId, e);
    }
    return new Stored(rows, ids);
  }

  private boolean await(String what, Duration limit, BooleanSupplier done) throws InterruptedException {
    return ChildJvm.await(log, what, limit, Duration.ofSeconds(1), done);
  }

  @Override
  public void close() throws Exception {
    if (vertx != null) {
      vertx.close().await(1, TimeUnit.MINUTES);
    }
    if (coordinator != null) {
      coordinator.close();
    }
  }
}
