package io.busload.coordinator.bench;

import io.busload.coordinator.Coordinator;
import io.busload.coordinator.CoordinatorSettings;
import io.busload.coordinator.Http;
import io.busload.coordinator.store.DatabaseSettings;
import io.busload.coordinator.store.Database;
import io.busload.coordinator.store.ResultStore;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.KernelResult;
import io.busload.protocol.cluster.ClusterSettings;
import io.busload.testsupport.Ports;
import io.vertx.core.Vertx;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
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
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The store's speed figures (20,000 results/s wanted), measured and printed by one run (a main class, not a timed
 * test).
 *
 * <p>Run it with {@code ./busload mvn -q -pl coordinator test-compile exec:exec@store-bench}; arguments through
 * {@code -Dbench.args="200000 1000000 4000 10"}: results timed, results stored before the ingest, requests the agent
 * keeps in flight, samples per result. It takes about five minutes on two cores. The machine is shared: the run
 * prints the load average and how busy the cores were with other processes beside its figures.
 *
 * <ol>
 *   <li><b>A year of results first.</b> 1,000,000 results, measured times spread over a year, stored directly
 *       ({@link ResultStore#insertResults}, not timed), then VACUUM ANALYZE as autovacuum would: results go into a store
 *       that holds history, whose indexes no longer fit in PostgreSQL's buffers.
 *   <li><b>Ingest.</b> The coordinator (this JVM) on an embedded PostgreSQL 18 with {@code fsync} and
 *       {@code synchronous_commit} on (as the coordinator runs it: an ack must mean on disk). An agent-role cluster
 *       member in a JVM of its own ({@link BenchAgent}) sends results over the clustered event bus (Vert.x on
 *       Hazelcast, loopback TCP) to the coordinator's intake, each a request acked by the coordinator after the
 *       batch holding it committed; a window of requests stays in flight, as many agents' would. After a warm-up
 *       (rounds of 25,000 results until the coordinator's JIT compilers are done: before, they take much of the
 *       CPU), the timed run: results/s from the first send to the last ack.
 *   <li><b>CPU per result</b> in the timed run: the coordinator JVM's, PostgreSQL's (the server and its children)
 *       and the agent JVM's, and how busy the machine's cores were, with this run and with other processes. The
 *       coordinator's and PostgreSQL's are what a production coordinator pays (agents run on the GPU hosts there;
 *       here the agent takes the same two cores); from them, the rate those two alone could sustain on two idle
 *       cores. PostgreSQL's WAL bytes per result and the JIT time in the run, to read the figures by.
 *   <li><b>Queries</b>, with everything stored (over 1,000,000 results), over REST: the comparison (latest valid
 *       result per model) and one device's history of one kernel, 30 requests each after 5 warm-ups.
 *   <li><b>CSV export</b> of the newest 1,000,000 over REST, streamed, with this JVM's used heap sampled meanwhile.
 * </ol>
 */
public final class StoreBench {
  /** Warm-up rounds, results each: until the JIT compilers calm down, they take much of two cores. */
  private static final int WARM_UP_ROUND = 25_000;
  private static final int WARM_UP_ROUNDS = 16;

  private StoreBench() {}

  public static void main(String[] args) throws Exception {
    quietLogs();
    int ingestCount = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
    int storedTotal = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
    int window = args.length > 2 ? Integer.parseInt(args[2]) : 4000;
    int samples = args.length > 3 ? Integer.parseInt(args[3]) : 10;
    Path dir = Files.createTempDirectory("busload-bench");
    Path pgData = dir.resolve("pg");
    System.out.printf("load before: %s%n", loadAverage());
    try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().setDataDirectory(pgData)
        // Durable like production: the library's defaults (fsync off, synchronous_commit off) would flatter ingest.
        .setServerConfig("fsync", "on").setServerConfig("synchronous_commit", "on").start()) {
      DatabaseSettings database = new DatabaseSettings(postgres.getJdbcUrl("postgres", "postgres"), "postgres", "postgres");
      String name = "busload-bench-" + UUID.randomUUID();
      int port = Ports.free();
      // A tokens file of its own, so the coordinator does not make and print a first API token.
      Coordinator coordinator = Coordinator.start(new CoordinatorSettings(Http.tokensIn(dir.resolve("data")),
          "127.0.0.1", 0,
          new ClusterSettings(name, "127.0.0.1", null, port, 0, List.of("127.0.0.1"), ClusterSettings.COORDINATOR),
          database)).await(120, TimeUnit.SECONDS);
      try (var c = java.sql.DriverManager.getConnection(database.jdbcUrl(), "postgres", "postgres");
          var rs = c.createStatement().executeQuery("SELECT version(), current_setting('fsync'),"
              + " current_setting('synchronous_commit')")) {
        rs.next();
        System.out.printf("machine: %d cores, coordinator JVM max heap %d MiB; %s; fsync=%s synchronous_commit=%s%n",
            Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20,
            rs.getString(1).replaceAll(" on .*", ""), rs.getString(2), rs.getString(3));
      }

      // Ingest into a store that already holds a year of results, as a coordinator's does: its indexes no longer
      // fit in PostgreSQL's buffers, unlike an empty table's.
      Database db = Vertx.vertx().executeBlocking(() -> Database.open(database, dir.resolve("data")))
          .await(60, TimeUnit.SECONDS);
      ResultStore store = new ResultStore(db);
      List<DeviceInfo> devices = BenchAgent.devices();
      fill(store, devices, storedTotal, samples);
      vacuumAnalyze(database);
      System.out.printf("stored results before the ingest: %,d%n", store.resultCount());

      try (Agent agent = Agent.start(name, port, window, samples, dir.resolve("agent-stderr.log"))) {
        warmUp(agent);
        long compiling = ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
        long[] walBefore = wal(database);
        Cpu before = Cpu.now(pgData, agent.process);
        Agent.Outcome outcome = agent.ingest(ingestCount);
        Cpu after = Cpu.now(pgData, agent.process);
        long[] walAfter = wal(database);
        report(ingestCount, window, samples, outcome, before, after);
        System.out.printf("  WAL per result: %,d bytes, %.2f full-page images (%d checkpoints during the run)%n",
            (walAfter[0] - walBefore[0]) / ingestCount, (walAfter[1] - walBefore[1]) / (double) ingestCount,
            walAfter[2] - walBefore[2]);
        System.out.printf("  JIT compiling in the coordinator JVM during the run: %,d ms%n",
            ManagementFactory.getCompilationMXBean().getTotalCompilationTime() - compiling);
      }

      System.out.printf("stored results after the ingest: %,d%n", store.resultCount());
      vacuumAnalyze(database);
      sizes(database);

      HttpClient http = HttpClient.newHttpClient();
      String base = "http://127.0.0.1:" + coordinator.httpPort();
      String params = URLEncoder.encode("elements=1024;stride=4", StandardCharsets.UTF_8);
      String device = URLEncoder.encode(devices.get(3).id(), StandardCharsets.UTF_8);
      timeGet(http, base + "/api/comparisons?kernel=" + BenchAgent.KERNEL + "&params=" + params,
          "comparison (latest valid per model)");
      timeGet(http, base + "/api/results?device=" + device + "&kernel=" + BenchAgent.KERNEL + "&params=" + params
          + "&limit=1000", "history of one device, kernel and params (newest 1000)");
      timeGet(http, base + "/api/results?device=" + device + "&kernel=" + BenchAgent.KERNEL + "&limit=1000",
          "history of one device and kernel, all params (newest 1000)");
      export(http, base + "/api/results?format=csv&limit=" + storedTotal, storedTotal);

      db.close();
      coordinator.stop().await(30, TimeUnit.SECONDS);
    }
    System.out.printf("load after: %s%n", loadAverage());
    // PostgreSQL removed its cluster when it stopped; what is left is the coordinator's data directory and logs.
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
    System.exit(0);
  }

  /**
   * Sends rounds of results until the coordinator JVM spent under 3% of a round compiling (at least 4 rounds, at
   * most {@link #WARM_UP_ROUNDS}): what is timed after it is the steady state a long-running coordinator is in.
   */
  private static void warmUp(Agent agent) throws Exception {
    var jit = ManagementFactory.getCompilationMXBean();
    for (int round = 1; ; round++) {
      long compiled = jit.getTotalCompilationTime();
      Agent.Outcome outcome = agent.ingest(WARM_UP_ROUND);
      long compiling = jit.getTotalCompilationTime() - compiled;
      if ((round >= 4 && compiling < outcome.nanos() / 1e6 * 0.03) || round == WARM_UP_ROUNDS) {
        System.out.printf("warm-up: %,d results in %d rounds; JIT compiling in the last round: %d ms of %.1f s%n",
            round * WARM_UP_ROUND, round, compiling, outcome.nanos() / 1e9);
        return;
      }
    }
  }

  private static void report(int count, int window, int samples, Agent.Outcome outcome, Cpu before, Cpu after)
      throws Exception {
    double seconds = outcome.nanos() / 1e9;
    double coordinator = (after.coordinatorNanos - before.coordinatorNanos) / 1e3 / count;
    double postgres = (after.postgresNanos - before.postgresNanos) / 1e3 / count;
    double agent = (after.agentNanos - before.agentNanos) / 1e3 / count;
    long cores = Runtime.getRuntime().availableProcessors();
    double busy = (after.machineBusyTicks - before.machineBusyTicks) / 100.0 / seconds;
    double ours = (coordinator + postgres + agent) * count / 1e6 / seconds;
    System.out.printf("ingest: %,d results (%d samples each) over the clustered event bus, each acked after its batch"
            + " committed, in %.2f s = %,.0f results/s (%d in flight, %d refused or failed)%n", count, samples, seconds,
        count / seconds, window, outcome.failed());
    System.out.printf("  CPU per result: coordinator JVM %.1f us, PostgreSQL %.1f us, agent JVM %.1f us%n",
        coordinator, postgres, agent);
    System.out.printf("  machine busy %.2f of %d cores during the run: this run %.2f, other processes %.2f;"
        + " load average now %s%n", busy, cores, ours, Math.max(0, busy - ours), loadAverage());
    System.out.printf("  coordinator and PostgreSQL alone on %d idle cores: about %,.0f results/s (%d cores / %.1f us)"
        + "%n", cores, cores * 1e6 / (coordinator + postgres), cores, coordinator + postgres);
  }

  /** CPU time spent so far by this JVM, by PostgreSQL's processes and by the agent's JVM; the machine's busy ticks. */
  private record Cpu(long coordinatorNanos, long postgresNanos, long agentNanos, long machineBusyTicks) {
    static Cpu now(Path pgData, Process agent) throws Exception {
      long self = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
          .getProcessCpuTime();
      long postmaster = Long.parseLong(Files.readAllLines(pgData.resolve("postmaster.pid")).getFirst().trim());
      ProcessHandle pm = ProcessHandle.of(postmaster).orElseThrow();
      long postgres = Stream.concat(Stream.of(pm), pm.children()).mapToLong(Cpu::cpuNanos).sum();
      return new Cpu(self, postgres, cpuNanos(agent.toHandle()), machineBusy());
    }

    private static long cpuNanos(ProcessHandle process) {
      return process.info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
    }

    /** /proc/stat's first line: every tick (USER_HZ, 100 a second) not idle and not waiting for I/O. */
    private static long machineBusy() throws Exception {
      String[] f = Files.readAllLines(Path.of("/proc/stat")).getFirst().trim().split("\\s+");
      long total = 0;
      for (int i = 1; i < f.length && i <= 8; i++) {
        total += Long.parseLong(f[i]);
      }
      return total - Long.parseLong(f[4]) - Long.parseLong(f[5]);
    }
  }

  /** {@link BenchAgent} in a JVM of its own, started with this JVM's flags and class path, driven over stdin. */
  private static final class Agent implements AutoCloseable {
    record Outcome(long nanos, long failed) {}

    private final Process process;
    private final BufferedReader out;
    private final PrintWriter in;

    private final Path log;

    private Agent(Process process, Path log) {
      this.process = process;
      this.log = log;
      this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
      this.in = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
    }

    static Agent start(String cluster, int port, int window, int samples, Path log) throws Exception {
      List<String> command = new ArrayList<>();
      command.add(ProcessHandle.current().info().command().orElseThrow());
      // This JVM's flags (the fleet's), less a profiler's: two JVMs must not write one recording.
      ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
          .filter(a -> !a.startsWith("-XX:StartFlightRecording") && !a.startsWith("-agent")).forEach(command::add);
      command.addAll(List.of("-cp", System.getProperty("java.class.path"), BenchAgent.class.getName(), cluster,
          String.valueOf(port), String.valueOf(window), String.valueOf(samples)));
      Agent agent = new Agent(new ProcessBuilder(command).redirectError(log.toFile()).start(), log);
      agent.expect("ready");
      return agent;
    }

    Outcome ingest(int count) throws Exception {
      in.println("ingest " + count);
      String[] done = expect("done").split(" ");
      return new Outcome(Long.parseLong(done[2]), Long.parseLong(done[3]));
    }

    private String expect(String prefix) throws Exception {
      for (String line; (line = out.readLine()) != null; ) {
        if (line.startsWith(prefix)) {
          return line;
        }
      }
      throw new IllegalStateException("agent JVM ended (exit " + process.waitFor() + ") before '" + prefix
          + "'; its stderr: " + log);
    }

    @Override
    public void close() throws Exception {
      in.close();
      // Its log lines until it exits, so that a full pipe cannot hold it up.
      while (out.readLine() != null) {
        continue;
      }
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
  }

  /** What autovacuum would do in time: the planner's statistics, and the visibility map for index-only scans. */
  private static void vacuumAnalyze(DatabaseSettings database) throws Exception {
    try (var c = java.sql.DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password())) {
      c.createStatement().execute("VACUUM ANALYZE results");
    }
  }

  /** The results table and each of its indexes, in MiB: what must stay in memory for inserts to stay fast. */
  private static void sizes(DatabaseSettings database) throws Exception {
    try (var c = java.sql.DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
        var rs = c.createStatement().executeQuery("SELECT pg_table_size('results') >> 20, string_agg(i.relname || ' '"
            + " || (pg_relation_size(i.oid) >> 20), ', ' ORDER BY i.relname), current_setting('shared_buffers')"
            + " FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid WHERE x.indrelid = 'results'::regclass")) {
      rs.next();
      System.out.printf("results table %,d MiB; indexes (MiB): %s; shared_buffers %s%n", rs.getLong(1),
          rs.getString(2), rs.getString(3));
    }
  }

  /** PostgreSQL's WAL bytes and full-page images written so far, and checkpoints done. */
  private static long[] wal(DatabaseSettings database) throws Exception {
    try (var c = java.sql.DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
        var rs = c.createStatement().executeQuery("SELECT wal_bytes, wal_fpi, (SELECT num_timed + num_requested"
            + " FROM pg_stat_checkpointer) FROM pg_stat_wal")) {
      rs.next();
      return new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)};
    }
  }

  /** Fills the store directly (not the figure measured) to the total, measured times spread over a year. */
  private static void fill(ResultStore store, List<DeviceInfo> devices, long missing, int samples) {
    long start = System.nanoTime();
    Instant origin = Instant.now().minus(Duration.ofDays(365));
    int batch = 5000;
    for (long done = 0; done < missing; done += batch) {
      List<KernelResult> results = new ArrayList<>(batch);
      for (int i = 0; i < batch && done + i < missing; i++) {
        long n = done + i;
        results.add(BenchAgent.result(devices, n, samples,
            origin.plusMillis(n * (365L * 86_400_000L / Math.max(1, missing)))));
      }
      store.insertResults(results, Instant.now());
    }
    System.out.printf("filled %,d results directly in %.1f s%n", Math.max(0, missing), (System.nanoTime() - start) / 1e9);
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
        + " %d MiB, peak while streaming %d MiB, garbage included (max heap %d MiB)%n", rows, bytes >> 20, seconds,
        rows / seconds, baseline >> 20, peak >> 20, Runtime.getRuntime().maxMemory() >> 20);
    marks.forEach(m -> System.out.println("  " + m));
  }

  private static long used() {
    Runtime rt = Runtime.getRuntime();
    return rt.totalMemory() - rt.freeMemory();
  }

  /** The figures, not the coordinator's INFO lines; warnings and errors still show. */
  static void quietLogs() {
    ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME))
        .setLevel(ch.qos.logback.classic.Level.WARN);
  }

  private static String loadAverage() throws Exception {
    return Files.readString(Path.of("/proc/loadavg")).trim();
  }
}
