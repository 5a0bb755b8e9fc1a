package io.busload.coordinator.bench;

import io.busload.coordinator.TestDatabase;
import io.busload.coordinator.store.ComparisonStore;
import io.busload.coordinator.store.Database;
import io.busload.coordinator.store.DatabaseSettings;
import io.busload.coordinator.store.ResultQuery;
import io.busload.coordinator.store.ResultStore;
import io.busload.coordinator.store.StoredResult;
import io.busload.coordinator.store.VerdictStore;
import io.busload.coordinator.store.ViewStore;
import io.busload.protocol.CacheResidency;
import io.busload.protocol.Clocks;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.KernelResult;
import io.busload.protocol.ResultStatus;
import io.busload.protocol.Sampling;
import io.busload.protocol.StopReason;
import io.vertx.core.Vertx;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.tools.ToolProvider;

/**
 * Bytes per stored result, ingest and query times, with the results table as it was before V8
 * (one table) and as V8 makes it (monthly partitions, compressed JSON and samples), on the same code, the same
 * generated year of results and the same embedded PostgreSQL settings. Prints both arms and their ratio.
 *
 * <p>Run it with {@code ./busload mvn -q -pl coordinator -am test-compile exec:exec@storage-bench
 * -Dstorage.bench.args="300000 50000 10"}: results stored over a year before the timed ingest, results ingested timed (measured
 * "tonight", in batches of the intake's {@code MAX_BATCH}), samples per result.
 *
 * <p>For each arm: a fresh PostgreSQL (fsync and synchronous_commit on, as the coordinator runs it); the year filled
 * through {@link ResultStore#insertResults} in batches of 1,000 (timed too: that is ingest into a growing store);
 * VACUUM ANALYZE as autovacuum would; the timed ingest; the sizes (heap, TOAST and every index, summed over
 * partitions); then each read of store/ that the REST API and dashboard make, 5 warm-ups and 20 timed calls, with the
 * indexes each one used (pg_stat_user_indexes, summed over partitions). An index no query uses is listed as such.
 */
public final class StorageBench {
  /** 78 results a device a night: 6 kernels times 13 strides. */
  private static final List<String> KERNELS = List.of("stride_copy_fp32", "stride_copy_fp64", "gather_fp32",
      "scatter_fp32", "transpose_fp32", ComparisonStore.MEMCPY_KERNEL);
  private static final int STRIDES = 13;
  private static final int DEVICES = 96;
  private static final List<String> MODELS = List.of("NVIDIA H100 80GB HBM3", "NVIDIA H200", "NVIDIA A100-SXM4-80GB",
      "NVIDIA L40S");
  private static final int FILL_BATCH = 1000;
  private static final int INGEST_BATCH = 1000;
  /** Results a night for 1,000 hosts with 8 GPUs each. */
  private static final long RESULTS_A_NIGHT = 624_000;

  /** The default sample retention (CoordinatorSettings.DEFAULT_SAMPLE_RETENTION). */
  private static final Duration RETENTION = Duration.ofDays(90);

  private StorageBench() {}

  /** Apart, so that the arm of a coordinator without a sample retention never loads its class. */
  private static final class Aging {
    static io.busload.coordinator.store.SampleRetention.Dropped ageOut(Database db, Duration keep) {
      return new io.busload.coordinator.store.SampleRetention(db).ageOut(Instant.now(), keep);
    }
  }

  /** One arm's figures, in the order they print. */
  private record Arm(String name, Map<String, Double> figures, Map<String, String> notes) {}

  public static void main(String[] args) throws Exception {
    StoreBench.quietLogs();
    if (args.length > 0 && args[0].equals("arm")) {
      // A child JVM: one arm, on whatever coordinator classes its class path holds; figures as tab-separated lines.
      Arm arm = arm(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]), Integer.parseInt(args[4]));
      arm.figures().forEach((k, v) -> System.out.println("FIGURE\t" + k + "\t" + v));
      arm.notes().forEach((k, v) -> System.out.println("NOTE\t" + k + "\t" + v));
      System.exit(0);
    }
    String stored = args.length > 0 ? args[0] : "300000";
    String ingest = args.length > 1 ? args[1] : "50000";
    String samples = args.length > 2 ? args[2] : "10";
    System.out.printf("load before: %s; %d cores%n", load(), Runtime.getRuntime().availableProcessors());
    // Before = the commit before V8 came, unless -Dstorage.bench.before names another (since the merge of main,
    // main's tip stores V7's sampling columns, which the commit before V8 did not have).
    // Maven runs this from the coordinator folder: the path is named from the repository's top (":/").
    String named = System.getProperty("storage.bench.before", "");
    String base = !named.isBlank() ? named : git("log", "-1", "--format=%H", "--diff-filter=A", "--",
        ":/coordinator/src/main/resources/db/migration/V8__results_partitioned_by_month.sql") + "^";
    Path before = coordinatorAt(git("rev-parse", base));
    String classPath = System.getProperty("java.class.path");
    String afterClasses = Arrays.stream(classPath.split(java.io.File.pathSeparator))
        .filter(e -> Files.exists(Path.of(e, "io/busload/coordinator/store/ResultStore.class"))).findFirst()
        .orElseThrow(() -> new IllegalStateException("no coordinator classes on the class path"));
    Map<String, Map<String, Double>> figures = new LinkedHashMap<>();
    Map<String, Map<String, String>> notes = new LinkedHashMap<>();
    // The same bench code and dependencies; only the coordinator's classes (and so its migrations) differ.
    Map<String, String> arms = new LinkedHashMap<>();
    arms.put("before", classPath.replace(afterClasses, before.toString()));
    arms.put("after", classPath);
    for (var arm : arms.entrySet()) {
      List<String> command = new ArrayList<>();
      command.add(ProcessHandle.current().info().command().orElseThrow());
      command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
      command.addAll(List.of("-cp", arm.getValue(), StorageBench.class.getName(), "arm", arm.getKey(), stored, ingest,
          samples));
      Process child = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
      Map<String, Double> f = new LinkedHashMap<>();
      Map<String, String> n = new LinkedHashMap<>();
      try (var out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = out.readLine()) != null; ) {
          String[] parts = line.split("\t", 3);
          if (parts[0].equals("FIGURE")) {
            f.put(parts[1], Double.parseDouble(parts[2]));
          } else if (parts[0].equals("NOTE")) {
            n.put(parts[1], parts[2]);
          } else {
            System.out.println(line);
          }
        }
      }
      if (child.waitFor() != 0) {
        throw new IllegalStateException("arm " + arm.getKey() + " failed with exit " + child.exitValue());
      }
      figures.put(arm.getKey(), f);
      notes.put(arm.getKey(), n);
    }
    System.out.printf("%nbefore: the coordinator at %s (%s); after: this build. %s results stored"
        + " over a year, then %s ingested tonight, %s samples each%n", git("rev-parse", base),
        named.isBlank() ? "before V8" : "-Dstorage.bench.before", stored, ingest,
        samples);
    System.out.printf("%n%-66s %12s %12s %8s%n", "figure", "before", "after", "ratio");
    for (String key : figures.get("before").keySet()) {
      double a = figures.get("before").get(key);
      double b = figures.get("after").getOrDefault(key, Double.NaN);
      System.out.printf("%-66s %,12.1f %,12.1f %8.3f%n", key, a, b, b / a);
    }
    // Figures only the after arm has (its sample retention).
    figures.get("after").forEach((key, b) -> {
      if (!figures.get("before").containsKey(key)) {
        System.out.printf("%-66s %12s %,12.1f%n", key, "-", b);
      }
    });
    System.out.println();
    notes.forEach((arm, n) -> n.forEach((k, v) -> System.out.printf("%s, %s: %s%n", arm, k, v)));
    System.out.printf("load after: %s%n", load());
    System.exit(0);
  }

  /** The coordinator's main classes and resources at {@code commit}, compiled against this build's class path. */
  private static Path coordinatorAt(String commit) throws Exception {
    Path dir = Files.createTempDirectory("busload-coordinator-" + commit.substring(0, 8));
    Path sources = dir.resolve("src");
    Files.createDirectories(sources);
    String root = git("rev-parse", "--show-toplevel");
    Process archive = new ProcessBuilder("sh", "-c", "git -C '" + root + "' archive " + commit
        + " coordinator/src/main | tar -x -C '" + sources + "'").redirectErrorStream(true).start();
    String archived = new String(archive.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (archive.waitFor() != 0) {
      throw new IllegalStateException("git archive " + commit + ": " + archived);
    }
    Path classes = dir.resolve("classes");
    Path main = sources.resolve("coordinator/src/main");
    List<String> javac = new ArrayList<>(List.of("-d", classes.toString(), "-proc:none", "-nowarn", "-cp",
        System.getProperty("java.class.path")));
    try (Stream<Path> walk = Files.walk(main.resolve("java"))) {
      walk.filter(f -> f.toString().endsWith(".java")).map(Path::toString).forEach(javac::add);
    }
    if (ToolProvider.getSystemJavaCompiler().run(null, null, System.err, javac.toArray(String[]::new)) != 0) {
      throw new IllegalStateException("compiling the coordinator at " + commit + " failed");
    }
    Path resources = main.resolve("resources");
    try (Stream<Path> walk = Files.walk(resources)) {
      for (Path f : walk.filter(Files::isRegularFile).toList()) {
        Path to = classes.resolve(resources.relativize(f).toString());
        Files.createDirectories(to.getParent());
        Files.copy(f, to);
      }
    }
    return classes;
  }

  private static String git(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("git"));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    if (p.waitFor() != 0 || out.isEmpty()) {
      throw new IllegalStateException("git " + String.join(" ", args) + ": " + out);
    }
    return out;
  }

  private static Arm arm(String name, int stored, int ingest, int samples) throws Exception {
    Map<String, Double> figures = new LinkedHashMap<>();
    Map<String, String> notes = new LinkedHashMap<>();
    Path dir = Files.createTempDirectory("busload-storage-bench");
    System.out.printf("%n== %s ==%n", name);
    try (EmbeddedPostgres pg = EmbeddedPostgres.builder().setDataDirectory(dir.resolve("pg"))
        .setServerConfig("fsync", "on").setServerConfig("synchronous_commit", "on").start()) {
      DatabaseSettings settings = new DatabaseSettings(pg.getJdbcUrl("postgres", "postgres"), "postgres", "postgres");
      Vertx vertx = Vertx.vertx();
      Database db = vertx.executeBlocking(() -> Database.open(settings, dir.resolve("data")))
          .await(120, TimeUnit.SECONDS);
      try (Connection c = connect(settings)) {
        var rs = c.createStatement().executeQuery("SELECT version FROM flyway_schema_history WHERE success"
            + " ORDER BY installed_rank DESC LIMIT 1");
        rs.next();
        String schema = rs.getString(1);
        notes.put("server", one(c, "SELECT version() || ', shared_buffers ' || current_setting('shared_buffers')"
                + " || ', default_toast_compression ' || current_setting('default_toast_compression')"));
        ResultStore store = new ResultStore(db);
        List<DeviceInfo> devices = devices();
        Instant yearAgo = Instant.now().minus(Duration.ofDays(365));
        long t0 = System.nanoTime();
        for (int done = 0; done < stored; done += FILL_BATCH) {
          List<KernelResult> batch = new ArrayList<>(FILL_BATCH);
          for (int i = done; i < Math.min(stored, done + FILL_BATCH); i++) {
            batch.add(result(devices, i, samples, yearAgo.plusMillis(i * (365L * 86_400_000L / stored))));
          }
          store.insertResults(batch, Instant.now());
        }
        double fillSeconds = (System.nanoTime() - t0) / 1e9;
        figures.put("fill: results/s into a growing year (batches of 1,000)", stored / fillSeconds);
        c.createStatement().execute("VACUUM ANALYZE results");

        double[] batchMs = new double[(ingest + INGEST_BATCH - 1) / INGEST_BATCH];
        long t1 = System.nanoTime();
        for (int done = 0, b = 0; done < ingest; done += INGEST_BATCH, b++) {
          List<KernelResult> batch = new ArrayList<>(INGEST_BATCH);
          Instant tonight = Instant.now();
          for (int i = done; i < Math.min(ingest, done + INGEST_BATCH); i++) {
            batch.add(result(devices, stored + i, samples, tonight));
          }
          long bt = System.nanoTime();
          store.insertResults(batch, Instant.now());
          batchMs[b] = (System.nanoTime() - bt) / 1e6;
        }
        double ingestSeconds = (System.nanoTime() - t1) / 1e9;
        Arrays.sort(batchMs);
        figures.put("ingest: results/s tonight into the full year", ingest / ingestSeconds);
        figures.put("ingest: median ms per batch of 1,000", batchMs[batchMs.length / 2]);
        figures.put("ingest: p90 ms per batch of 1,000", batchMs[(int) (batchMs.length * 0.9)]);
        notes.put("load after ingest", load());
        c.createStatement().execute("VACUUM ANALYZE results");

        long count = store.resultCount();
        // Where raw samples have a table of their own (V16), it counts here too: these figures are the store with
        // every sample kept, as in the arm without one.
        boolean samplesApart = one(c, "SELECT to_regclass('result_samples') IS NOT NULL").equals("t");
        String trees = samplesApart ? "(SELECT relid FROM pg_partition_tree('results') UNION ALL SELECT relid FROM"
            + " pg_partition_tree('result_samples')) AS tree" : "pg_partition_tree('results')";
        long table = longOf(c, "SELECT coalesce((SELECT sum(pg_table_size(relid))"
            + " FROM " + trees + "), pg_table_size('results'))");
        long indexes = longOf(c, "SELECT coalesce((SELECT sum(pg_indexes_size(relid))"
            + " FROM " + trees + "), pg_indexes_size('results'))");
        figures.put("stored results", (double) count);
        figures.put("bytes per result: table (heap + TOAST)", table / (double) count);
        figures.put("bytes per result: indexes", indexes / (double) count);
        figures.put("bytes per result: total", (table + indexes) / (double) count);
        figures.put("GiB for a year at 624,000 results a night", (table + indexes) / (double) count
            * RESULTS_A_NIGHT * 365 / (1L << 30));
        figures.put("result_json: average stored bytes (pg_column_size)",
            Double.parseDouble(one(c, "SELECT avg(pg_column_size(result_json)) FROM results")));
        figures.put("samples: average stored bytes (pg_column_size)", Double.parseDouble(one(c, samplesApart
            ? "SELECT avg(pg_column_size(samples)) FROM result_samples"
            : "SELECT avg(pg_column_size(samples)) FROM results")));
        notes.put("partitions", one(c, "SELECT count(*) FROM pg_partition_tree('results') WHERE isleaf"));
        notes.put("average stored bytes per column of results (pg_column_size; NULL counts 0)", columnSizes(c));
        // Not in the totals above (neither arm's): the table that keeps every result id once (V10), and the
        // tables of what results share (V20); printed so that the year figure can be read with them.
        notes.put("bytes per result of result_ids (table + index, not in the totals)",
            String.format("%.1f", longOf(c, "SELECT pg_total_relation_size('result_ids')") / (double) count));
        notes.put("bytes per result of result_setups (table + indexes)",
            one(c, "SELECT to_regclass('result_setups') IS NULL").equals("t") ? "none" : one(c, "SELECT"
                + " round(pg_total_relation_size('result_setups')::numeric / " + count + ", 2)::text || ' ('"
                + " || (SELECT count(*) FROM result_setups) || ' rows)'"));
        notes.put("indexes (MiB, over every partition)", indexSizes(c));
        if (samplesApart) {
          // Raw samples in their own month partitions (V16): what they cost, then the year as the retention leaves
          // it. The year was filled evenly, so what is left on disk after aging out is a year's store in steady
          // state; bytes per stored result times a year of nights is the same extrapolation as above.
          long samplesBytes = longOf(c, "SELECT sum(pg_total_relation_size(relid))"
              + " FROM pg_partition_tree('result_samples') WHERE isleaf");
          figures.put("bytes per result: results (summary, kept for good)",
              (table + indexes - samplesBytes) / (double) count);
          figures.put("bytes per result: result_samples (raw samples)", samplesBytes / (double) count);
          long ta = System.nanoTime();
          var dropped = Aging.ageOut(db, RETENTION);
          figures.put("retention: seconds to age out", (System.nanoTime() - ta) / 1e9);
          figures.put("retention: months dropped", (double) dropped.months().size());
          figures.put("retention: results whose samples were dropped", (double) dropped.results());
          long samplesLeft = longOf(c, "SELECT coalesce(sum(pg_total_relation_size(relid)), 0)"
              + " FROM pg_partition_tree('result_samples') WHERE isleaf");
          long resultsLeft = longOf(c, "SELECT sum(pg_total_relation_size(relid))"
              + " FROM pg_partition_tree('results') WHERE isleaf");
          figures.put("retention: bytes per result on disk after it", (resultsLeft + samplesLeft) / (double) count);
          figures.put("GiB for a year at 624,000 results a night, 90-day samples", (resultsLeft + samplesLeft)
              / (double) count * RESULTS_A_NIGHT * 365 / (1L << 30));
          notes.put("samples kept from", String.valueOf(dropped.droppedBefore()));
        }

        DeviceInfo device = devices.get(7);
        String kernel = KERNELS.getFirst();
        String params = "stride=4";
        ViewStore views = new ViewStore(db);
        ComparisonStore analysis = new ComparisonStore(db);
        VerdictStore verdicts = new VerdictStore(db);
        StoredResult mid = store.results(query(null, null, null), null, 5000)
            .getLast();
        Map<String, Callable<Object>> queries = new LinkedHashMap<>();
        queries.put("REST results, newest 100", () -> store.results(query(null, null, null), null, 100));
        queries.put("REST results, page after the 5,000th", () -> store.results(query(null, null, null), mid, 100));
        queries.put("REST results of one device, newest 100",
            () -> store.results(query(device.id(), null, null), null, 100));
        queries.put("REST results of one kernel, newest 100", () -> store.results(query(null, kernel, null), null, 100));
        queries.put("paging key of one result by id", () -> store.resultKey(mid.id()));
        queries.put("samples of one result by id", () -> store.samples(mid.id()));
        queries.put("comparison (latest valid per model)", () -> analysis.comparison(kernel, params));
        queries.put("device history of one kernel (regression check)",
            () -> analysis.history(device.id(), kernel, params, Instant.now(), 30));
        queries.put("verdict series of one device (a year)", () -> verdicts.series(device.id(), kernel, params,
            Instant.now().minus(Duration.ofDays(366)), Instant.now(), 1000));
        queries.put("Compare: kernel pairs", views::kernels);
        queries.put("Compare: latest per pair of one model", () -> views.latest(null, MODELS.get(1)));
        queries.put("History: newest 1,000 of one kernel and params", () -> views.history(kernel, params, 1000));
        queries.put("a sweep's results", () -> verdicts.sweepResults("sweep-" + (stored / 10_000)));
        for (var q : queries.entrySet()) {
          Map<String, Long> beforeScans = indexScans(c); // the previous query's flushed: see the sleep below
          double[] ms = new double[20];
          for (int i = 0; i < 5; i++) {
            q.getValue().call();
          }
          for (int i = 0; i < ms.length; i++) {
            long t = System.nanoTime();
            q.getValue().call();
            ms[i] = (System.nanoTime() - t) / 1e6;
          }
          Arrays.sort(ms);
          figures.put("query ms (median of 20): " + q.getKey(), ms[ms.length / 2]);
          // A backend flushes its statistics at most once a second, and when idle within 10 s (PostgreSQL 15+).
          Thread.sleep(10_500);
          Map<String, Long> after = indexScans(c);
          List<String> used = new ArrayList<>();
          after.forEach((index, scans) -> {
            if (scans > beforeScans.getOrDefault(index, 0L)) {
              used.add(index);
            }
          });
          notes.put("indexes used by " + q.getKey(), used.isEmpty() ? "none (sequential scan)" : String.join(", ", used));
        }
        notes.put("load after queries", load());
        notes.put("schema", schema);
        db.close();
        vertx.close().await(30, TimeUnit.SECONDS);
        return new Arm(name, figures, notes);
      }
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
    }
  }

  private static ResultQuery query(String deviceId, String kernel, String params) {
    return new ResultQuery(null, deviceId, null, kernel, params, null, null, 100_000);
  }

  static List<DeviceInfo> devices() {
    List<DeviceInfo> devices = new ArrayList<>();
    for (int i = 0; i < DEVICES; i++) {
      String host = "gpu-host-" + (i / 8) + ".cluster.example.org";
      devices.add(new DeviceInfo(host + "/cuda:" + (i % 8), DeviceInfo.CUDA, MODELS.get(i / 8 % MODELS.size()),
          "GPU-" + UUID.nameUUIDFromBytes((host + i).getBytes()), "9.0", 132, 50L << 20, 80L << 30, 2_619_000_000L,
          5120, 3.35e12, "580.95.05"));
    }
    return devices;
  }

  /**
   * Result {@code n}: every device in turn, each through the 78 (kernel, stride) pairs of a night, a sweep per 10,000
   * results; medians with a little noise, samples around them, as an agent's.
   */
  static KernelResult result(List<DeviceInfo> devices, long n, int samples, Instant at) {
    DeviceInfo device = devices.get((int) (n % DEVICES));
    long pair = n / DEVICES % (KERNELS.size() * STRIDES);
    String kernel = KERNELS.get((int) (pair / STRIDES));
    long stride = 1L << (pair % STRIDES);
    Random random = new Random(n);
    double median = 1.0e-4 * Math.min(stride, 32) * (1 + random.nextGaussian() * 0.002);
    List<Double> values = new ArrayList<>(samples);
    for (int i = 0; i < samples; i++) {
      values.add(median * (1 + random.nextGaussian() * 0.005));
    }
    long bytes = 64L << 20;
    String sweep = "sweep-" + (n / 10_000);
    return KernelResult.builder().id(new UUID(random.nextLong(), random.nextLong()))
        .runId(sweep + "-run-" + device.id()).sweepId(sweep)
        .agentId(device.id().substring(0, device.id().indexOf('/'))).agentVersion("0.9.1")
        .fatbinHash("sha256:4f1c0d8a9b7e6f5a4c3b2a1908f7e6d5c4b3a29180f7e6d5c4b3a2918f0e1d2c").device(device)
        .suite("coalescing").kernel(kernel).params(Map.of("stride", stride, "elements", 16_777_216)).valid(true)
        .mismatches(List.of()).medianSeconds(median).minSeconds(median * 0.99).maxSeconds(median * 1.01)
        .relativeSpread(0.02).samples(values).launchesPerSample(10).warmupLaunches(5).bytesRead(bytes / 2)
        .bytesWritten(bytes / 2).bytes(bytes).bandwidth(bytes / median)
        .method("warm-up 5 launches; " + samples + " samples of 10 launches between one event pair; median")
        .measuredAt(at).build()
        // As agents report each result: how the samples were timed, clocks read, the working set against L2.
        .withSampling(ResultStatus.MEASURED, new Sampling(samples, 0, 0, StopReason.SPREAD_SETTLED,
            new Clocks(Clocks.Reading.READ, "NVML, driver " + device.driverVersion(), 1980, 1980, 2619, 2619, 0L, 0,
                false), CacheResidency.of(bytes, device.l2Bytes(), false)));
  }

  /** Index scans so far per index of results (a partition's index counted under its parent's name). */
  private static Map<String, Long> indexScans(Connection c) throws Exception {
    Map<String, Long> scans = new TreeMap<>();
    c.createStatement().execute("SELECT pg_stat_clear_snapshot()");
    try (ResultSet rs = c.createStatement().executeQuery("SELECT coalesce(pg_partition_root(s.indexrelid),"
        + " s.indexrelid)::regclass::text, sum(s.idx_scan) FROM pg_stat_user_indexes s"
        + " WHERE coalesce(pg_partition_root(s.relid), s.relid) = 'results'::regclass GROUP BY 1")) {
      while (rs.next()) {
        scans.put(rs.getString(1), rs.getLong(2));
      }
    }
    return scans;
  }

  /** Each column's average stored size over every row of results, largest first. */
  private static String columnSizes(Connection c) throws Exception {
    List<String> columns = new ArrayList<>();
    try (ResultSet rs = c.createStatement().executeQuery("SELECT attname FROM pg_attribute WHERE attrelid ="
        + " 'results'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum")) {
      while (rs.next()) {
        columns.add(rs.getString(1));
      }
    }
    StringBuilder sql = new StringBuilder("SELECT string_agg(c || ' ' || b, ', ' ORDER BY b DESC, c) FROM (VALUES ");
    for (int i = 0; i < columns.size(); i++) {
      sql.append(i == 0 ? "" : ", ").append("('").append(columns.get(i)).append("', (SELECT round(avg(coalesce("
          + "pg_column_size(\"").append(columns.get(i)).append("\"), 0)), 1) FROM results))");
    }
    return one(c, sql.append(") AS v(c, b)").toString());
  }

  private static String indexSizes(Connection c) throws Exception {
    return one(c, "SELECT string_agg(i.indexrelid::regclass || ' ' || round(coalesce((SELECT"
        + " sum(pg_relation_size(relid)) FROM pg_partition_tree(i.indexrelid::regclass)),"
        + " pg_relation_size(i.indexrelid)) / 1048576.0, 1), ', ' ORDER BY i.indexrelid::regclass::text)"
        + " FROM pg_index i WHERE i.indrelid = 'results'::regclass");
  }

  private static Connection connect(DatabaseSettings s) throws Exception {
    return TestDatabase.connect(s);
  }

  private static String one(Connection c, String sql) throws Exception {
    return TestDatabase.first(c, sql);
  }

  private static long longOf(Connection c, String sql) throws Exception {
    return Long.parseLong(one(c, sql));
  }

  private static String load() throws Exception {
    return Files.readString(Path.of("/proc/loadavg")).trim();
  }
}
