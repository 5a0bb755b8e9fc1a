package io.busload.coordinator.bench;

import io.busload.coordinator.Fixtures;
import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.AgentHello;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.Heartbeat;
import io.busload.protocol.KernelResult;
import io.busload.protocol.Protocol;
import io.busload.protocol.cluster.Cluster;
import io.busload.protocol.cluster.ClusterSettings;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The agent side of {@link StoreBench}, in a JVM of its own (as agents are, on other machines): joins the cluster as
 * an agent-role member, says hello with {@link #DEVICES} GPUs, then on each {@code ingest COUNT} line from stdin
 * sends COUNT results to {@link Addresses#RESULTS}, keeping a window of requests in flight (each ack, sent by the
 * coordinator after the batch holding that result committed, lets the next one go), and answers
 * {@code done COUNT NANOS FAILED}. Arguments: cluster name, cluster port, window, samples per result.
 */
public final class BenchAgent {
  static final int DEVICES = 16;
  static final int STRIDES = 8;
  static final String KERNEL = "stride_copy_fp32";
  static final String AGENT_ID = "bench-agent";

  private BenchAgent() {}

  public static void main(String[] args) throws Exception {
    StoreBench.quietLogs();
    String cluster = args[0];
    int port = Integer.parseInt(args[1]);
    int window = Integer.parseInt(args[2]);
    int samples = Integer.parseInt(args[3]);
    Vertx agent = Cluster.start(new ClusterSettings(cluster, "127.0.0.1", null, port, 0, List.of("127.0.0.1"),
        ClusterSettings.AGENT)).await(120, TimeUnit.SECONDS);
    List<DeviceInfo> devices = devices();
    Ack hello = agent.eventBus().<Ack>request(Addresses.AGENT_HELLO, new AgentHello(Protocol.SCHEMA_VERSION, AGENT_ID,
        "bench-host", "0.1.0", "fatbin-abc", devices, Instant.now())).await(60, TimeUnit.SECONDS).body();
    if (!hello.ok()) {
      throw new IllegalStateException("hello refused: " + hello.reason());
    }
    // Heartbeats as a real agent sends them, so the coordinator keeps the agent online through the run.
    agent.setPeriodic(2000, id -> agent.eventBus().send(Addresses.AGENT_HEARTBEAT,
        new Heartbeat(Protocol.SCHEMA_VERSION, AGENT_ID, Instant.now(), List.of())));
    System.out.println("ready");
    System.out.flush();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null && line.startsWith("ingest "); ) {
      int count = Integer.parseInt(line.substring("ingest ".length()).trim());
      long[] outcome = ingest(agent, devices, count, window, samples);
      System.out.println("done " + count + " " + outcome[0] + " " + outcome[1]);
      System.out.flush();
    }
    agent.close().await(30, TimeUnit.SECONDS);
    System.exit(0);
  }

  static List<DeviceInfo> devices() {
    List<DeviceInfo> devices = new ArrayList<>();
    for (int i = 0; i < DEVICES; i++) {
      devices.add(Fixtures.gpu("bench-host-" + (i / 8), i % 8));
    }
    return devices;
  }

  /** Nanoseconds from the first send to the last ack, and how many were refused or failed. */
  private static long[] ingest(Vertx agent, List<DeviceInfo> devices, int count, int window, int samples)
      throws Exception {
    AtomicLong sent = new AtomicLong();
    AtomicLong acked = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    Promise<Void> done = Promise.promise();
    long start = System.nanoTime();
    Runnable[] next = new Runnable[1];
    next[0] = () -> {
      long n = sent.incrementAndGet();
      if (n > count) {
        return;
      }
      KernelResult r = result(devices, n, samples, Instant.now());
      agent.eventBus().<Ack>request(Addresses.RESULTS, r).onComplete(reply -> {
        if (reply.failed() || !reply.result().body().ok()) {
          failed.incrementAndGet();
        }
        if (acked.incrementAndGet() == count) {
          done.complete();
        } else {
          next[0].run();
        }
      });
    };
    agent.runOnContext(v -> {
      for (int i = 0; i < Math.min(window, count); i++) {
        next[0].run();
      }
    });
    done.future().await(30, TimeUnit.MINUTES);
    return new long[] {System.nanoTime() - start, failed.get()};
  }

  /**
   * One result like a GPU agent's: {@link #DEVICES} devices times {@link #STRIDES} strides of one kernel, the median
   * with a little noise, {@code samples} samples around it.
   */
  static KernelResult result(List<DeviceInfo> devices, long n, int samples, Instant at) {
    DeviceInfo device = devices.get((int) (n % DEVICES));
    long stride = 1L << (n / DEVICES % STRIDES);
    ThreadLocalRandom random = ThreadLocalRandom.current();
    double median = 1.0e-4 * stride * (1 + random.nextGaussian() * 0.002);
    List<Double> values = new ArrayList<>(samples);
    for (int i = 0; i < samples; i++) {
      values.add(median * (1 + random.nextGaussian() * 0.005));
    }
    long bytes = 8L << 20;
    return KernelResult.builder().id(UUID.randomUUID()).runId("run-" + (n / 1000)).sweepId("sweep-bench")
        .agentId(AGENT_ID).agentVersion("0.1.0").fatbinHash("fatbin-abc").device(device).suite("stride")
        .kernel(KERNEL).params(Map.of("stride", stride, "elements", 1024)).valid(true).mismatches(List.of())
        .medianSeconds(median).minSeconds(median * 0.99).maxSeconds(median * 1.01).relativeSpread(0.02)
        .samples(values).launchesPerSample(10).warmupLaunches(5).bytesRead(bytes / 2).bytesWritten(bytes / 2)
        .bytes(bytes).bandwidth(bytes / median)
        .method("warm-up 5 launches; " + samples + " samples of 10 launches between one event pair; median")
        .measuredAt(at).build();
  }
}
