package io.busload.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.coordinator.api.LocalCoordinator;
import io.busload.coordinator.store.DatabaseSettings;
import io.busload.protocol.Addresses;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.cluster.ClusterSettings;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code ./busload backup} (the agent's command line, in-process) against a real coordinator while a sweep's results
 * keep arriving, then {@code ./busload restore} ({@link RestoreCommand}) into a new data folder with its own embedded
 * PostgreSQL, and a coordinator started on it: the same results, schedules, tokens, accepted changes and
 * notification targets. Restore refuses a database that holds rows and a backup of a newer schema, changing nothing.
 */
class BackupRestoreTest {
  private static final DeviceInfo CPU = Fixtures.cpu("h1");
  private static final DeviceInfo GPU = Fixtures.gpu("h1", 0);
  private static final String ADMIN = "Bearer " + Http.TOKEN;
  /** The tables whose every row, secrets and hashes included, must come back as they were. */
  private static final List<String> KEPT = List.of("schedules", "api_tokens", "accepted_changes",
      "notification_targets", "notification_settings", "result_setups");

  @RegisterExtension final LocalCoordinator local = new LocalCoordinator();
  @TempDir Path dir;
  private Http http;
  private Path adminToken;

  @BeforeEach
  void start() throws IOException {
    http = local.http();
    adminToken = Files.writeString(dir.resolve("admin-token"), Http.TOKEN + "\n");
    assertThat(local.request(Addresses.AGENT_HELLO, Fixtures.hello("a1", CPU, GPU)).ok()).isTrue();
  }

  @Test
  void backupDuringSweep_restoredIntoNewDataFolder_sameResultsSchedulesTokensChangesAndTargets() throws Exception {
    JsonNode sweep = created(http.post("/api/sweeps", "{\"suite\":\"stride\",\"devices\":[\"h1/cpu\",\"h1/cuda:0\"]}"));
    String sweepId = sweep.get("id").asText();
    String runId = sweep.get("runs").get(1).get("runId").asText();
    // Two months of results, so the restore has two partitions of results to make.
    Instant october = Instant.now().minus(40, ChronoUnit.DAYS);
    for (int i = 0; i < 10; i++) {
      store(Fixtures.result("s-old", "r-old", "a1", GPU, 1 + i, i % 3 != 0, october.plusSeconds(i)));
    }
    created(http.post("/api/schedules", "{\"cron\":\"30 2 * * 1-5\",\"timeZone\":\"Asia/Tokyo\",\"suite\":\"stride\"}"));
    created(http.post("/api/tokens", "{\"name\":\"ci-push\",\"scopes\":[\"push\"]}"));
    created(http.post("/api/accepted-changes", "{\"device\":\"" + GPU.id() + "\",\"kernel\":\"stride_copy_fp32\","
        + "\"from\":\"" + october + "\",\"why\":\"driver 13.1: the new level is expected\"}"));
    created(http.post("/api/notifications/targets", "{\"name\":\"ci hook\",\"kind\":\"webhook\",\"secrets\":{\"url\":"
        + "\"http://127.0.0.1:9/hook\",\"key\":\"k7Qv2mZ0c9xKfR3pL8sWnYbT1uHjE6aDg0\"}}"));

    // The sweep's results keep arriving, one acknowledged (committed) after the other, while the backup is taken.
    Instant base = Instant.now().minus(1, ChronoUnit.HOURS);
    AtomicInteger stored = new AtomicInteger();
    AtomicBoolean stop = new AtomicBoolean();
    Thread writer = Thread.ofPlatform().start(() -> {
      for (int i = 0; !stop.get(); i++) {
        store(Fixtures.result(sweepId, runId, "a1", GPU, 1 + i % 64, true, base.plusMillis(10L * i)));
        stored.incrementAndGet();
      }
    });
    await(() -> stored.get() >= 20);
    int before = stored.get();
    Path backup = dir.resolve("busload.zip");
    int code = backup(backup);
    int after = stored.get();
    stop.set(true);
    writer.join(10_000);
    int all = stored.get();

    assertThat(code).as(err.toString()).isZero();
    assertThat(out.toString()).contains(backup + " written").contains("schema version");
    assertThat(Files.getPosixFilePermissions(backup)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
    assertThat(after).as("results stored while the backup was taken").isGreaterThan(before);
    List<String> sourceCsv = csv(http);
    Map<String, String> sourceTables = tables(local.settings().database());
    // What the results' rows name by setup_key (V20) must come back with them.
    assertThat(sourceTables.get("result_setups")).isNotEmpty();
    JsonNode sourceSchedules = Http.json(http.get("/api/schedules"));
    JsonNode sourceTokens = Http.json(http.get("/api/tokens", null, ADMIN));
    JsonNode sourceChanges = Http.json(http.get("/api/accepted-changes"));
    JsonNode sourceTargets = Http.json(http.get("/api/notifications/targets", null, ADMIN));

    Path data = dir.resolve("restored");
    assertThat(restore(backup, data, Map.of())).as(err.toString()).isZero();
    assertThat(out.toString()).contains("restored into the embedded PostgreSQL of " + data);

    Vertx vertx = Vertx.vertx();
    try {
      Coordinator restored = Coordinator.deploy(vertx, new CoordinatorSettings(data, "127.0.0.1", 0,
          new ClusterSettings("unused", "127.0.0.1", null, 5701, 0, List.of("127.0.0.1"), ClusterSettings.COORDINATOR),
          DatabaseSettings.EMBEDDED)).await(90, TimeUnit.SECONDS);
      try {
        Http there = new Http(restored.httpPort());
        List<String> restoredCsv = csv(there);
        int results = restoredCsv.size() - 1;
        // The snapshot holds every result acknowledged before the backup began, and exactly the oldest ones, with
        // no gap: the CSV lists newest first, so the restored rows are the source's last rows, row for row.
        assertThat(results).isBetween(10 + before, 10 + all);
        assertThat(restoredCsv.getFirst()).isEqualTo(sourceCsv.getFirst());
        assertThat(restoredCsv.subList(1, restoredCsv.size()))
            .containsExactlyElementsOf(sourceCsv.subList(sourceCsv.size() - results, sourceCsv.size()));
        assertThat(Http.json(there.get("/api/schedules"))).isEqualTo(sourceSchedules);
        // The admin token works on the restored coordinator with no tokens file: its hash came back.
        assertThat(Http.json(there.get("/api/tokens", null, ADMIN))).isEqualTo(sourceTokens).hasSize(2);
        assertThat(Http.json(there.get("/api/accepted-changes"))).isEqualTo(sourceChanges).hasSize(1);
        assertThat(Http.json(there.get("/api/notifications/targets", null, ADMIN))).isEqualTo(sourceTargets)
            .hasSize(1);
        JsonNode restoredSweep = Http.json(there.get("/api/sweeps/" + sweepId));
        assertThat(restoredSweep.get("suite").asText()).isEqualTo("stride");
        assertThat(restoredSweep.get("runs").get(1).get("runId").asText()).isEqualTo(runId);
        assertThat(tables(embedded(data))).isEqualTo(sourceTables);
      } finally {
        restored.stop().await(30, TimeUnit.SECONDS);
      }
    } finally {
      vertx.close().await(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void restore_databaseHoldingRows_refusedNamingTheTablesAndChangesNothing() throws Exception {
    Path backup = dir.resolve("busload.zip");
    assertThat(backup(backup)).as(err.toString()).isZero();
    DatabaseSettings target = TestDatabase.fresh();
    Map<String, String> env = Map.of("BUSLOAD_DB_URL", target.jdbcUrl(), "BUSLOAD_DB_USER", target.user(),
        "BUSLOAD_DB_PASSWORD", target.password());
    assertThat(restore(backup, dir.resolve("unused"), env)).as(err.toString()).isZero();
    Map<String, String> once = tables(target);

    int again = restore(backup, dir.resolve("unused"), env);

    assertThat(again).isEqualTo(1);
    assertThat(err.toString()).contains("refused: the database is not empty (").contains("agents 1 row")
        .contains("api_tokens 1 row").contains("restore fills only a fresh coordinator");
    assertThat(tables(target)).isEqualTo(once);
  }

  @Test
  void restore_backupOfNewerSchema_refusedNamingBothVersionsAndChangesNothing() throws Exception {
    Path backup = dir.resolve("busload.zip");
    assertThat(backup(backup)).as(err.toString()).isZero();
    String version;
    try (ZipFile zip = new ZipFile(backup.toFile())) {
      version = io.busload.protocol.JsonCodec.MAPPER.readTree(zip.getInputStream(zip.getEntry("manifest.json")))
          .get("schemaVersion").asText();
    }
    Path newer = rewriteManifest(backup, dir.resolve("newer.zip"), "\"schemaVersion\":\"" + version + "\"",
        "\"schemaVersion\":\"999\"");
    DatabaseSettings target = TestDatabase.fresh();

    int code = restore(newer, dir.resolve("unused"), Map.of("BUSLOAD_DB_URL", target.jdbcUrl(),
        "BUSLOAD_DB_USER", target.user(), "BUSLOAD_DB_PASSWORD", target.password()));

    assertThat(code).isEqualTo(1);
    assertThat(err.toString()).contains("refused: the backup is of schema version 999, newer than this"
        + " coordinator's newest (" + version + "): restore it with the Busload release that wrote it");
    try (Connection c = TestDatabase.connect(target)) {
      assertThat(TestDatabase.first(c, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")).isEqualTo("0");
    }
  }

  /**
   * A restore makes a backup's partitions from the bounds its manifest states; a manifest with SQL after a bound is
   * refused before any of it runs, and the restore leaves no rows.
   */
  @Test
  void restore_manifestWithSqlInAPartitionBound_refusedAndNothingRuns() throws Exception {
    Path backup = dir.resolve("busload.zip");
    assertThat(backup(backup)).as(err.toString()).isZero();
    // The results table's partitions: a valid bound, then a statement of the attacker's.
    Path crafted = rewriteManifest(backup, dir.resolve("crafted.zip"),
        "(\"name\":\"results\",\"columns\":\\[[^\\]]*\\],\"rows\":0,\"partitions\":)\\[\\]",
        "$1[{\"name\":\"results_2026_11\",\"bound\":\"FOR VALUES FROM ('2026-11-01') TO ('2026-12-01');"
            + " DROP TABLE agents; --\"}]");
    DatabaseSettings target = TestDatabase.fresh();

    int code = restore(crafted, dir.resolve("unused"), Map.of("BUSLOAD_DB_URL", target.jdbcUrl(),
        "BUSLOAD_DB_USER", target.user(), "BUSLOAD_DB_PASSWORD", target.password()));

    assertThat(code).isEqualTo(1);
    assertThat(err.toString()).contains("refused: ").contains("has a name or bound this coordinator does not make");
    try (Connection c = TestDatabase.connect(target)) {
      assertThat(TestDatabase.first(c, "SELECT to_regclass('agents') IS NOT NULL")).isEqualTo("t");
      assertThat(TestDatabase.first(c, "SELECT count(*) FROM api_tokens")).isEqualTo("0");
    }
  }

  /** A backup holds token hashes and notification secrets: no token, or one without the admin scope, gets none. */
  @Test
  void getBackup_noTokenOrReadToken_refused401Or403() {
    String reader = created(http.post("/api/tokens", "{\"name\":\"reader\",\"scopes\":[\"read\"]}")).get("token")
        .asText();

    HttpResponse<String> anonymous = http.get("/api/backup", null, null);
    HttpResponse<String> read = http.get("/api/backup", null, "Bearer " + reader);

    assertThat(anonymous.statusCode()).isEqualTo(401);
    assertThat(read.statusCode()).isEqualTo(403);
    assertThat(Http.json(read).get("detail").asText()).contains("'admin' scope");
    assertThat(http.get("/api/backup", null, ADMIN).statusCode()).isEqualTo(200);
  }

  private StringWriter out;
  private StringWriter err;

  private int backup(Path file) {
    out = new StringWriter();
    err = new StringWriter();
    CommandLine cli = io.busload.agent.Main.commandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    return cli.execute("backup", file.toString(), "--coordinator", "http://127.0.0.1:" + local.httpPort(), "--token-file", adminToken.toString());
  }

  private int restore(Path file, Path data, Map<String, String> env) {
    out = new StringWriter();
    err = new StringWriter();
    RestoreCommand command = new RestoreCommand();
    command.env = env;
    CommandLine cli = new CommandLine(command);
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    return cli.execute(file.toString(), "--data", data.toString());
  }

  private void store(io.busload.protocol.KernelResult result) {
    assertThat(local.request(Addresses.RESULTS, result).ok()).isTrue();
  }

  private static JsonNode created(HttpResponse<String> response) {
    assertThat(response.statusCode()).as(response.body()).isIn(200, 201);
    return Http.json(response);
  }

  private static List<String> csv(Http http) {
    HttpResponse<String> response = http.get("/api/results?format=csv&limit=1000000");
    assertThat(response.statusCode()).isEqualTo(200);
    return response.body().lines().toList();
  }

  private static void await(java.util.function.BooleanSupplier condition) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waited 60 s").isLessThan(end);
      Thread.sleep(10);
    }
  }

  /** Every row of each {@link #KEPT} table as PostgreSQL prints it, in order. */
  private static Map<String, String> tables(DatabaseSettings database) throws SQLException {
    Map<String, String> rows = new java.util.TreeMap<>();
    try (Connection c = DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
        Statement s = c.createStatement()) {
      for (String table : KEPT) {
        StringBuilder text = new StringBuilder();
        try (ResultSet rs = s.executeQuery("SELECT t::text FROM " + table + " t ORDER BY 1")) {
          while (rs.next()) {
            text.append(rs.getString(1)).append('\n');
          }
        }
        rows.put(table, text.toString());
      }
    }
    return rows;
  }

  /** The embedded PostgreSQL of a running coordinator's data folder: its port from the lock file, its password. */
  private static DatabaseSettings embedded(Path data) throws IOException {
    String port = Files.readAllLines(data.resolve("postgres").resolve("postmaster.pid")).get(3).strip();
    return new DatabaseSettings("jdbc:postgresql://127.0.0.1:" + port + "/postgres", "postgres",
        Files.readString(data.resolve("postgres-password")).strip());
  }

  /** A copy of the backup whose manifest has its first match of the regular expression {@code find} replaced. */
  private static Path rewriteManifest(Path from, Path to, String find, String replace) throws IOException {
    try (ZipFile zip = new ZipFile(from.toFile()); OutputStream file = Files.newOutputStream(to);
        ZipOutputStream copy = new ZipOutputStream(file)) {
      for (Enumeration<? extends ZipEntry> entries = zip.entries(); entries.hasMoreElements(); ) {
        ZipEntry entry = entries.nextElement();
        copy.putNextEntry(new ZipEntry(entry.getName()));
        try (InputStream in = zip.getInputStream(entry)) {
          byte[] bytes = in.readAllBytes();
          if (entry.getName().equals("manifest.json")) {
            String text = new String(bytes, StandardCharsets.UTF_8);
            assertThat(text).containsPattern(find);
            bytes = text.replaceFirst(find, replace).getBytes(StandardCharsets.UTF_8);
          }
          copy.write(bytes);
        }
        copy.closeEntry();
      }
    }
    return to;
  }
}
