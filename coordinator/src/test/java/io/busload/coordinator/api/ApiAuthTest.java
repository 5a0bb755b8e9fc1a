package io.busload.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import io.busload.coordinator.Coordinator;
import io.busload.coordinator.CoordinatorSettings;
import io.busload.coordinator.Fixtures;
import io.busload.coordinator.Http;
import io.busload.coordinator.TestDatabase;
import io.busload.protocol.Addresses;
import io.busload.protocol.cluster.ClusterSettings;
import io.vertx.core.Vertx;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * REST writes need a bearer token from the store, reads need none, and no token reaches the log (captured at DEBUG,
 * Vert.x and Netty included) or the store, which keeps only hashes. The coordinator starts with no tokens file and an
 * empty store, so it makes the first (admin) token itself, as in production.
 */
class ApiAuthTest {
  private static final String SWEEP = "{\"suite\":\"stride\"}";
  private static final String SCHEDULE = "{\"cron\":\"0 3 * * *\",\"suite\":\"stride\"}";
  private static final String WRONG = "wrong-token-Zx81kQpL0mN4vB7cR2tY9uI6oE3aS5dF";

  @TempDir Path dir;
  private Vertx vertx;
  private Coordinator coordinator;
  private Http http;
  private String token;
  private Path tokensFile;
  private io.busload.coordinator.store.DatabaseSettings database;
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final Map<String, Level> levels = new java.util.HashMap<>();

  @BeforeEach
  void start() throws Exception {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    for (String name : List.of(org.slf4j.Logger.ROOT_LOGGER_NAME, "io.vertx", "io.netty", "io.busload",
        "com.zaxxer.hikari", "org.flywaydb", "io.zonky")) {
      Logger logger = context.getLogger(name);
      levels.put(name, logger.getLevel());
      logger.setLevel(Level.DEBUG);
    }
    logs.start();
    context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).addAppender(logs);

    tokensFile = dir.resolve("data").resolve(CoordinatorSettings.API_TOKENS_FILE_NAME);
    Path first = dir.resolve("first-api-token");
    database = TestDatabase.fresh();
    CoordinatorSettings settings = new CoordinatorSettings(dir.resolve("data"), "127.0.0.1", 0,
        new ClusterSettings("unused", "127.0.0.1", null, 5701, 0, List.of("127.0.0.1"), ClusterSettings.COORDINATOR),
        database, tokensFile, first);
    vertx = Vertx.vertx();
    coordinator = Coordinator.deploy(vertx, settings).await(30, TimeUnit.SECONDS);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(first))).isEqualTo("rw-------");
    assertThat(tokensFile).as("tokens live in the store; no file is made").doesNotExist();
    token = Files.readString(first).strip();
    http = new Http(coordinator.httpPort());
    vertx.eventBus().request(Addresses.AGENT_HELLO, Fixtures.hello("auth-agent", Fixtures.gpu("auth-host", 0)))
        .await(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    coordinator.stop().await(20, TimeUnit.SECONDS);
    vertx.close().await(20, TimeUnit.SECONDS);
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).detachAppender(logs);
    levels.forEach((name, level) -> context.getLogger(name).setLevel(level));
  }

  @Test
  void write_withoutToken_401NamingAuthorizationAndNothingStored() {
    String schedule = Http.json(http.write("POST", "/api/schedules", SCHEDULE, "Bearer " + token)).get("id").asText();

    List<HttpResponse<String>> refused = List.of(
        http.write("POST", "/api/sweeps", SWEEP, null),
        http.write("POST", "/api/schedules", SCHEDULE, null),
        http.write("PUT", "/api/schedules/" + schedule, "{\"cron\":\"15 4 * * *\",\"suite\":\"stride\"}", null),
        http.write("POST", "/api/schedules/" + schedule + "/pause", "", null),
        http.write("DELETE", "/api/schedules/" + schedule, null, null));

    for (HttpResponse<String> response : refused) {
      assertUnauthorized(response);
    }
    assertThat(Http.json(http.get("/api/sweeps"))).as("no sweep stored").isEmpty();
    JsonNode schedules = Http.json(http.get("/api/schedules"));
    assertThat(schedules).as("only the authorised schedule, unchanged and not paused").hasSize(1);
    assertThat(schedules.get(0).get("cron").asText()).isEqualTo("0 3 * * *");
    assertThat(schedules.get(0).get("paused").asBoolean()).isFalse();
    System.out.printf("auth: %d writes without a token (POST sweep, POST/PUT/pause/DELETE schedule): %d x 401 naming"
        + " Authorization; sweeps stored 0, schedules %d (unchanged)%n", refused.size(), refused.size(), schedules.size());
  }

  @Test
  void write_wrongToken_401AndNothingStored() {
    for (String header : List.of("Bearer " + WRONG, "Bearer " + token + "x", "Bearer " + token.substring(1),
        "Basic " + token, token, "Bearer ", "Bearer " + ApiTokens.sha256Hex(token))) {
      assertUnauthorized(http.write("POST", "/api/sweeps", SWEEP, header));
    }
    assertThat(Http.json(http.get("/api/sweeps"))).as("no sweep stored").isEmpty();
    System.out.println("auth: 7 wrong Authorization headers (other token, token+x, token minus a character, Basic,"
        + " no scheme, empty, the stored hash itself): 7 x 401; sweeps stored 0");
  }

  @Test
  void write_rightToken_201_andReadsNeedNone() {
    HttpResponse<String> created = http.write("POST", "/api/sweeps", SWEEP, "Bearer " + token);

    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    HttpResponse<String> listed = http.write("GET", "/api/sweeps", null, null);
    assertThat(listed.statusCode()).isEqualTo(200);
    assertThat(Http.json(listed)).hasSize(1);
    assertThat(http.get("/api/agents").statusCode()).isEqualTo(200);
  }

  @Test
  void tokens_neverInLogAtDebugNorInStore() throws Exception {
    assertThat(http.write("POST", "/api/sweeps", SWEEP, "Bearer " + token).statusCode()).isEqualTo(201);
    assertThat(http.write("POST", "/api/sweeps", SWEEP, "Bearer " + WRONG).statusCode()).isEqualTo(401);
    assertThat(http.write("DELETE", "/api/schedules/x", null, "Bearer " + WRONG).statusCode()).isEqualTo(401);

    String stored;
    try (java.sql.Connection c = TestDatabase.connect(database)) {
      stored = TestDatabase.first(c, "SELECT string_agg(name || ':' || encode(sha256, 'hex') || ':'"
          + " || array_to_string(scopes, ',') || ':' || created_by, ';') FROM api_tokens");
    }
    assertThat(stored).isEqualTo(ApiTokens.FIRST_NAME + ":" + ApiTokens.sha256Hex(token) + ":admin:first start");
    List<String> lines = captured().stream().map(e -> e.getFormattedMessage()
        + (e.getThrowableProxy() == null ? "" : ThrowableProxyUtil.asString(e.getThrowableProxy()))).toList();
    assertThat(lines).as("the capture saw the refusals, so it was listening").anyMatch(l -> l.contains("refused"));
    assertThat(lines).as("DEBUG events were captured").isNotEmpty()
        .anyMatch(l -> l.contains("by token '" + ApiTokens.FIRST_NAME + "'"));
    assertThat(lines).noneMatch(l -> l.contains(token)).noneMatch(l -> l.contains(WRONG));
    System.out.printf("auth log check: %d events at DEBUG (coordinator start included), 2 tokens searched, 0 found;"
        + " the store holds only %s:<sha256>%n", lines.size(), ApiTokens.FIRST_NAME);
  }

  @Test
  void flood_ofRefusedWrites_eachCountedOnMetrics_logNotFlooded() {
    int flood = 300;
    for (int i = 0; i < flood; i++) {
      assertUnauthorized(http.write("POST", "/api/sweeps", SWEEP, i % 2 == 0 ? null : "Bearer " + WRONG));
    }

    java.util.regex.Matcher counted = java.util.regex.Pattern.compile("(?m)^busload_api_refused_total\\{why=\"no_valid_token\",?\\} ([0-9.E]+)$")
        .matcher(http.get("/metrics").body());
    assertThat(counted.find()).as("busload_api_refused_total{why=no_valid_token} on /metrics").isTrue();
    long lines = captured().stream().filter(e -> e.getLevel() == Level.WARN && e.getFormattedMessage()
        .contains("refused for want of a valid API token")).count();
    assertThat(Double.parseDouble(counted.group(1))).isEqualTo(flood);
    assertThat(lines).as("WARN lines for %d refused writes", flood).isBetween(1L, 2L);
    assertThat(Http.json(http.get("/api/sweeps"))).as("no sweep stored").isEmpty();
    System.out.printf("auth flood: %d refused writes, %s counted on /metrics, %d WARN line(s)%n", flood,
        counted.group(1), lines);
  }

  @Test
  void open_emptyStoreNoFirstTokenFile_printsAdminTokenOnceAndStoresOnlyItsHash() throws Exception {
    Path file = dir.resolve("other").resolve("tokens");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    io.busload.coordinator.store.DatabaseSettings empty = TestDatabase.fresh();
    try (io.busload.coordinator.store.Database db = io.busload.coordinator.store.Database.open(empty,
        dir.resolve("other"))) {
      var store = new io.busload.coordinator.store.ApiTokenStore(db);
      ApiTokens made = ApiTokens.open(store, file, null, new PrintStream(out, true, StandardCharsets.UTF_8),
          java.time.Clock.systemUTC());
      String printed = out.toString(StandardCharsets.UTF_8);
      String shown = printed.substring(printed.lastIndexOf(' ') + 1).strip();
      ApiTokens again = ApiTokens.open(store, file, null, new PrintStream(out, true, StandardCharsets.UTF_8),
          java.time.Clock.systemUTC());

      assertThat(shown).hasSize(43); // 32 random bytes, base64url without padding
      assertThat(made.check("Bearer " + shown)).isEqualTo(new ApiTokens.Valid(
          new ApiTokens.Caller(ApiTokens.FIRST_NAME, java.util.Set.of(Scope.ADMIN))));
      assertThat(again.check("Bearer " + shown)).as("read back from the store").isEqualTo(made.check("Bearer " + shown));
      assertThat(out.toString(StandardCharsets.UTF_8)).as("printed once, not again at the next start")
          .isEqualTo(printed);
      assertThat(store.all()).singleElement().satisfies(t -> assertThat(t.sha256()).isEqualTo(ApiTokens.sha256(shown)));
      assertThat(file).doesNotExist();
    }
  }

  @Test
  void open_tokensFile_importedOnceAsAdmin_revokedNameNotBroughtBack() throws Exception {
    Path file = dir.resolve("other").resolve("tokens");
    Files.createDirectories(file.getParent());
    Files.writeString(file, "# old tokens\nci:" + ApiTokens.sha256Hex("ci-secret") + "\n");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (io.busload.coordinator.store.Database db = io.busload.coordinator.store.Database.open(TestDatabase.fresh(),
        dir.resolve("other"))) {
      var store = new io.busload.coordinator.store.ApiTokenStore(db);
      ApiTokens first = ApiTokens.open(store, file, null, new PrintStream(out, true, StandardCharsets.UTF_8),
          java.time.Clock.systemUTC());
      assertThat(first.check("Bearer ci-secret")).isEqualTo(new ApiTokens.Valid(
          new ApiTokens.Caller("ci", java.util.Set.of(Scope.ADMIN))));
      assertThat(out.size()).as("no first token made: the store holds one").isZero();

      store.revoke("ci", java.time.Instant.now());
      ApiTokens restarted = ApiTokens.open(store, file, null, new PrintStream(out, true, StandardCharsets.UTF_8),
          java.time.Clock.systemUTC());

      assertThat(restarted.check("Bearer ci-secret")).as("revoked, and the file does not bring it back")
          .isEqualTo(new ApiTokens.Unknown());
      assertThat(out.size()).isZero();
    }
  }

  private void assertUnauthorized(HttpResponse<String> response) {
    assertThat(response.statusCode()).as(response.request().method() + " " + response.uri()).isEqualTo(401);
    assertThat(response.headers().firstValue("content-type")).hasValue(Problem.CONTENT_TYPE);
    assertThat(Http.json(response).get("field").asText()).isEqualTo("Authorization");
    assertThat(response.body()).doesNotContain(WRONG).doesNotContain(token);
  }

  /**
   * The events captured so far. The appender adds under its own lock from whatever thread logs (the server's event
   * loops log while a test reads), so the list is copied under that lock: streaming it directly threw
   * ConcurrentModificationException once.
   */
  private List<ILoggingEvent> captured() {
    synchronized (logs) {
      return List.copyOf(logs.list);
    }
  }
}
