package io.busload.coordinator.bench;

import io.busload.coordinator.Coordinator;
import io.busload.coordinator.CoordinatorSettings;
import io.busload.coordinator.Fixtures;
import io.busload.coordinator.store.DatabaseSettings;
import io.busload.coordinator.store.Store;
import io.busload.protocol.AgentHello;
import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.KernelResult;
import io.busload.protocol.Protocol;
import io.busload.protocol.cluster.Cluster;
import io.busload.protocol.cluster.ClusterSettings;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Issue 4's speed figures, measured and printed (a main class, not a timed test):
 *
 * <ol>
 *   <li>ingest: results sent by an agent-role cluster member over the clustered event bus, each acked by the
 *       coordinator after the batch holding it committed to PostgreSQL, a window of requests in flight;
 *   <li>with 1,000,000 results stored: the comparison query and one device's history of one kernel, over REST;
 *   <li>CSV export of all of them over REST, streamed, with the JVM's used heap sampled while it streams.
 * </ol>
 *
 * <p>Arguments: {@code [ingestCount=200000] [storedTotal=1000000] [inFlight=4000]}.
 */
public final class StoreBench {
  private static final int DEVICES = 16;
  private static final int STRIDES = 8;
  private static final String KERNEL = "stride_copy_fp32";

  public static void main(String[] args) throws Exception {
    int ingestCount = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
    int storedTotal = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
    int inFlight = args.length > 2 ? Integer.parseInt(args[2]) : 4000;
    Path dir = Files.createTempDirectory("busload-bench");
    try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().setDataDirectory(dir.resolve("pg"))
        // Durable like production: the library's defaults (fsync off, synchronous_commit off) would flatter ingest.
        .setServerConfig("fsync", "on").setServerConfig("synchronous_commit", "on").start()) {
      DatabaseSettings database = new DatabaseSettings(postgres.getJdbcUrl("postgres", "postgres"), "postgres", "postgres");
      String name = "busload-bench-" + UUID.randomUUID();
      int port = freePort();
      List<String> members = List.of("127.0.0.1");
      Coordinator coordinator = Coordinator.start(new CoordinatorSettings(dir.resolve("data"), "127.0.0.1", 0,
          new ClusterSettings(name, "127.0.0.1", null, port, 0, members, ClusterSettings.COORDINATOR), database))
          .await(120, TimeUnit.SECONDS);
      Vertx agent = Cluster.start(new ClusterSettings(name, "127.0.0.1", null, port, 0, members, ClusterSettings.AGENT))
          .await(120, TimeUnit.SECONDS);
      List<DeviceInfo> devices = new ArrayList<>();
      for (int i = 0; i < DEVICES; i++) {
        devices.add(Fixtures.gpu("bench-host-" + (i / 8), i % 8));
      }
      agent.eventBus().<Ack>request(Addresses.AGENT_HELLO, new AgentHello(Protocol.SCHEMA_VERSION, "bench-agent",
          "bench-host", "0.1.0", "fatbin-abc", devices, Instant.now())).await(30, TimeUnit.SECONDS);
      try (var c = java.sql.DriverManager.getConnection(database.jdbcUrl(), "postgres", "postgres");
          var rs = c.createStatement().executeQuery("SELECT version(), current_setting('fsync'),"
              + " current_setting('synchronous_commit')")) {
        rs.next();
        System.out.printf("machine: %d cores, JVM max heap %d MiB; %s; fsync=%s synchronous_commit=%s%n",
            Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20,
            rs.getString(1).replaceAll(" on .*", ""), rs.getString(2), rs.getString(3));
      }

      ingest(agent, devices, Math.min(20_000, ingestCount), inFlight, "warm-up");
      ingest(agent, devices, ingestCount, inFlight, "ingest");

      Store store = Vertx.vertx().executeBlocking(() -> Store.open(database, dir.resolve("data"))).await(60, TimeUnit.SECONDS);
      long before = countOf(store);
      fill(store, devices, storedTotal - before);
      long stored = countOf(store);
      System.out.printf("stored results: %,d%n", stored);
      try (var c = java.sql.DriverManager.getConnection(database.jdbcUrl(), "postgres", "postgres")) {
        c.createStatement().execute("VACUUM ANALYZE results");
      }

      HttpClient http = HttpClient.newHttpClient();
      String base = "http://127.0.0.1:" + coordinator.httpPort();
      String params = URLEncoder.encode("elements=1024;stride=4", StandardCharsets.UTF_8);
      timeGet(http, base + "/api/comparisons?kernel=" + KERNEL + "&params=" + params, "comparison (latest valid per model)");
      timeGet(http, base + "/api/results?device=" + URLEncoder.encode(devices.get(3).id(), StandardCharsets.UTF_8)
          + "&kernel=" + KERNEL + "&params=" + params + "&limit=1000",
          "history of one device, kernel and params (newest 1000)");
      timeGet(http, base + "/api/results?device=" + URLEncoder.encode(devices.get(3).id(), StandardCharsets.UTF_8)
          + "&kernel=" + KERNEL + "&limit=1000", "history of one device and kernel, all params (newest 1000)");
      export(http, base + "/api/results?format=csv&limit=" + stored, stored);

      store.close();
      agent.close().await(30, TimeUnit.SECONDS);
      coordinator.stop().await(30, TimeUnit.SECONDS);
    }
    System.exit(0);
  }

  /** Keeps {@code inFlight} requests open; each ack (sent after its batch commits) lets the next one go. */
  private static void ingest(Vertx agent, List<DeviceInfo> devices, int count, int inFlight, String label)
      throws Exception {
    AtomicLong sent = new AtomicLong();
    AtomicLong acked = new AtomicLong();
    AtomicLong refused = new AtomicLong();
    Promise<Void> done = Promise.promise();
    long start = System.nanoTime();
    Runnable[] next = new Runnable[1];
    next[0] = () -> {
      long n = sent.incrementAndGet();
      if (n > count) {
        return;
      }
      KernelResult r = result(devices, (int) n, Instant.now());
      agent.eventBus().<Ack>request(Addresses.RESULTS, r).onComplete(reply -> {
        if (reply.failed() || !reply.result().body().ok()) {
          refused.incrementAndGet();
        }
        if (acked.incrementAndGet() == count) {
          done.complete();
        } else {
          next[0].run();
        }
      });
    };
    agent.runOnContext(v -> {
      for (int i = 0; i < Math.min(inFlight, count); i++) {
        next[0].run();
      }
    });
    done.future().await(10, TimeUnit.MINUTES);
    double seconds = (System.nanoTime() - start) / 1e9;
    System.out.printf("%s: %,d results over the clustered event bus, acked after commit, in %.2f s = %,.0f results/s"
        + " (%d in flight, %d refused or failed)%n", label, count, seconds, count / seconds, inFlight, refused.get());
  }

  private static KernelResult result(List<DeviceInfo> devices, int n, Instant at) {
    DeviceInfo device = devices.get(n % DEVICES);
    long stride = 1L << (n / DEVICES % STRIDES);
    double noise = 1 + ThreadLocalRandom.current().nextGaussian() * 0.002;
    double median = 1.0e-4 * stride * noise;
    long bytes = 8L << 20;
    List<Double> samples = List.of(median * 0.99, median, median * 1.01, median, median * 1.005, median * 0.995,
        median, median * 1.002, median * 0.998, median);
    return new KernelResult(Protocol.SCHEMA_VERSION, UUID.randomUUID(), "run-" + (n / 1000), "sweep-bench", "bench-agent",
        "0.1.0", "fatbin-abc", device, "stride", KERNEL, Map.of("stride", stride, "elements", 1024), true, List.of(),
        median, median * 0.99, median * 1.01, 0.02, samples, 10, 5, bytes / 2, bytes / 2, bytes, bytes / median,
        "warm-up 5 launches; 10 samples of 10 launches between one event pair; median", at);
  }

  /** Fills the store directly (not the figure measured) to the total, measured times spread over a year. */
  private static void fill(Store store, List<DeviceInfo> devices, long missing) {
    long start = System.nanoTime();
    Instant origin = Instant.now().minus(Duration.ofDays(365));
    int batch = 5000;
    for (long done = 0; done < missing; done += batch) {
      List<KernelResult> results = new ArrayList<>(batch);
      for (int i = 0; i < batch && done + i < missing; i++) {
        long n = done + i;
        results.add(result(devices, (int) n, origin.plusMillis(n * (365L * 86_400_000L / Math.max(1, missing)))));
      }
      store.upsertResults(results, Instant.now());
    }
    System.out.printf("filled %,d results directly in %.1f s%n", missing, (System.nanoTime() - start) / 1e9);
  }

  private static long countOf(Store store) {
    return store.resultCount();
  }

  private static void timeGet(HttpClient http, String url, String label) throws Exception {
    HttpRequest request = HttpRequest.newBuilder(URI.create(url)).GET().build();
    for (int i = 0; i < 5; i++) {
      http.send(request, HttpResponse.BodyHandlers.discarding());
    }
    double[] ms = new double[30];
    int bodyBytes = 0;
    for (int i = 0; i < ms.length; i++) {
      long t = System.nanoTime();
      HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
      ms[i] = (System.nanoTime() - t) / 1e6;
      if (response.statusCode() != 200) {
        throw new IllegalStateException(url + " answered " + response.statusCode());
      }
      bodyBytes = response.body().length;
    }
    Arrays.sort(ms);
    System.out.printf("%s: median %.1f ms, p90 %.1f ms, max %.1f ms over %d requests (REST, %,d bytes)%n", label,
        ms[ms.length / 2], ms[(int) (ms.length * 0.9)], ms[ms.length - 1], ms.length, bodyBytes);
  }

  /** Reads the export as it streams, sampling the used heap of this JVM (coordinator and client both live here). */
  private static void export(HttpClient http, String url, long expectedRows) throws Exception {
    System.gc();
    Thread.sleep(500);
    long baseline = used();
    long start = System.nanoTime();
    HttpResponse<InputStream> response = http.send(HttpRequest.newBuilder(URI.create(url)).GET().build(),
        HttpResponse.BodyHandlers.ofInputStream());
    byte[] buffer = new byte[1 << 16];
    long bytes = 0;
    long rows = 0;
    long peak = baseline;
    long nextSample = 0;
    List<String> marks = new ArrayList<>();
    long nextMark = expectedRows / 4;
    try (InputStream in = response.body()) {
      for (int n; (n = in.read(buffer)) >= 0; ) {
        bytes += n;
        for (int i = 0; i < n; i++) {
          if (buffer[i] == '\n') {
            rows++;
          }
        }
        if (bytes >= nextSample) {
          peak = Math.max(peak, used());
          nextSample = bytes + (8 << 20);
        }
        if (rows >= nextMark && nextMark > 0) {
          long beforeGc = used();
          System.gc();
          marks.add(String.format("%,d rows: used heap %d MiB, %d MiB retained after a full GC", rows, beforeGc >> 20,
              used() >> 20));
          nextMark += expectedRows / 4;
        }
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    System.out.printf("CSV export: %,d lines (header included), %,d MiB in %.1f s = %,.0f rows/s; used heap baseline"
        + " %d MiB, peak while streaming %d MiB, garbage included (max heap %d MiB)%n", rows, bytes >> 20, seconds, rows / seconds,
        baseline >> 20, peak >> 20, Runtime.getRuntime().maxMemory() >> 20);
    marks.forEach(m -> System.out.println("  " + m));
  }

  private static long used() {
    Runtime rt = Runtime.getRuntime();
    return rt.totalMemory() - rt.freeMemory();
  }

  private static int freePort() throws Exception {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
