package io.busload.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.coordinator.CoordinatorSettings;
import io.busload.coordinator.Fixtures;
import io.busload.coordinator.Http;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import io.busload.testsupport.SettableClock;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Attacker tests of the REST API's tokens: a token holds only the scopes it was given, an expired or revoked token
 * is refused (a revoked one within seconds, with no restart), pushers' addresses are for admins only, and plain
 * HTTP off loopback is refused at start. {@link Http#TOKEN} is the admin token (imported from the tokens file);
 * the others are made through {@code POST /api/tokens}, as {@code ./busload token create} makes them.
 */
class TokenScopesTest {
  private static final String SWEEP = "{\"suite\":\"stride\"}";
  private static final String SCHEDULE = "{\"cron\":\"0 3 * * *\",\"suite\":\"stride\"}";
  private static final Instant T = Instant.parse("2026-11-20T10:00:00Z");
  private static final String ADMIN = "Bearer " + Http.TOKEN;

  @TempDir Path dir;
  private final SettableClock clock = new SettableClock(Instant.now());
  @RegisterExtension final LocalCoordinator local = new LocalCoordinator(clock);
  private Http http;

  @BeforeEach
  void start() {
    http = local.http();
    local.deliver(Fixtures.hello("scope-agent", Fixtures.gpu("scope-host", 0)));
  }

  /** A new token with {@code scopes} (and {@code expiresAt} when not null), made by the admin; its secret. */
  private String create(String name, List<String> scopes, Instant expiresAt) {
    Map<String, Object> body = expiresAt == null ? Map.of("name", name, "scopes", scopes)
        : Map.of("name", name, "scopes", scopes, "expiresAt", expiresAt.toString());
    HttpResponse<String> made = http.write("POST", "/api/tokens", new String(JsonCodec.toJson(body)), ADMIN);
    assertThat(made.statusCode()).as("POST /api/tokens: %s", made.body()).isEqualTo(201);
    return Http.json(made).get("token").asText();
  }

  @Test
  void pushToken_startsSweepOrDeletesSchedule_403NamingSweepScopeAndNothingChanged() {
    String schedule = Http.json(http.write("POST", "/api/schedules", SCHEDULE, ADMIN)).get("id").asText();
    String ci = "Bearer " + create("ci", List.of("push"), null);

    List<HttpResponse<String>> refused = List.of(
        http.write("POST", "/api/sweeps", SWEEP, ci),
        http.write("POST", "/api/schedules", SCHEDULE, ci),
        http.write("POST", "/api/schedules/" + schedule + "/pause", "", ci),
        http.write("DELETE", "/api/schedules/" + schedule, null, ci),
        http.write("POST", "/api/tokens", "{\"name\":\"mine\",\"scopes\":[\"admin\"]}", ci));

    for (HttpResponse<String> response : refused) {
      assertThat(response.statusCode()).as("%s %s: %s", response.request().method(), response.uri(), response.body())
          .isEqualTo(403);
      assertThat(response.headers().firstValue("content-type")).hasValue(Problem.CONTENT_TYPE);
      assertThat(Http.json(response).get("detail").asText()).containsAnyOf("'sweep' scope", "'admin' scope");
    }
    assertThat(Http.json(refused.get(0)).get("detail").asText()).contains("'sweep' scope");
    assertThat(Http.json(refused.get(4)).get("detail").asText()).contains("'admin' scope");
    assertThat(Http.json(http.get("/api/sweeps"))).as("no sweep started").isEmpty();
    JsonNode schedules = Http.json(http.get("/api/schedules"));
    assertThat(schedules).as("the schedule is still there").hasSize(1);
    assertThat(schedules.get(0).get("paused").asBoolean()).as("and not paused").isFalse();
    HttpResponse<String> pushed = http.write("POST", "/api/pushes?host=ci", "[]", ci);
    assertThat(pushed.statusCode()).as("the push scope still pushes: %s", pushed.body()).isNotIn(401, 403);
    System.out.printf("scopes: push token: 5 writes outside its scope (sweep, schedule, pause, delete, token) -> 5 x"
        + " 403; sweeps 0, schedules 1 (not paused); its push -> %d%n", pushed.statusCode());
  }

  @Test
  void expiredToken_401SayingItExpired() {
    String soon = "Bearer " + create("soon", List.of("sweep"), clock.instant().plus(Duration.ofHours(1)));
    assertThat(http.write("POST", "/api/sweeps", SWEEP, soon).statusCode()).as("before it expires").isEqualTo(201);

    clock.advance(Duration.ofHours(2));
    HttpResponse<String> late = http.write("POST", "/api/sweeps", SWEEP, soon);

    assertThat(late.statusCode()).as(late.body()).isEqualTo(401);
    assertThat(Http.json(late).get("detail").asText()).contains("expired");
    assertThat(Http.json(http.get("/api/sweeps"))).as("only the sweep made before it expired").hasSize(1);
    HttpResponse<String> past = http.write("POST", "/api/tokens",
        "{\"name\":\"old\",\"scopes\":[\"read\"],\"expiresAt\":\"2000-01-01T00:00:00Z\"}", ADMIN);
    assertThat(past.statusCode()).as("a token that expires in the past is refused: %s", past.body()).isEqualTo(400);
    assertThat(Http.json(past).get("field").asText()).isEqualTo("expiresAt");
  }

  @Test
  void revokedToken_401WithinSecondsWithoutRestart() throws Exception {
    String gone = "Bearer " + create("gone", List.of("sweep"), null);
    assertThat(http.write("POST", "/api/sweeps", SWEEP, gone).statusCode()).as("before it is revoked").isEqualTo(201);

    HttpResponse<String> revoked = http.write("DELETE", "/api/tokens/gone", null, ADMIN);
    assertThat(revoked.statusCode()).as(revoked.body()).isEqualTo(200);
    double seconds = secondsUntilRefused(gone, Duration.ofSeconds(10));

    assertThat(seconds).as("the revoked token is refused").isNotNegative();
    assertThat(seconds).as("within seconds of the revocation").isLessThan(5.0);
    assertThat(Http.json(http.get("/api/tokens", null, ADMIN)).findValuesAsText("name")).contains("gone");
    System.out.printf("revoke: refused %.2f s after DELETE /api/tokens/gone, no restart%n", seconds);
  }

  @Test
  void tokenRevokedByAnotherCoordinator_401WithinSecondsWithoutRestart() throws Exception {
    String other = "Bearer " + create("other", List.of("sweep"), null);
    assertThat(http.write("POST", "/api/sweeps", SWEEP, other).statusCode()).as("before it is revoked").isEqualTo(201);

    // What DELETE /api/tokens/other on another coordinator of the same store does: this one hears nothing of it.
    try (java.sql.Connection c = io.busload.coordinator.TestDatabase.connect(local.settings().database());
        java.sql.Statement s = c.createStatement()) {
      assertThat(s.executeUpdate("UPDATE api_tokens SET revoked_at = now() WHERE name = 'other'")).isEqualTo(1);
    }
    double seconds = secondsUntilRefused(other, Duration.ofSeconds(15));

    assertThat(seconds).as("the token revoked in the store is refused").isNotNegative();
    assertThat(seconds).as("within seconds (every coordinator reads the tokens table every 2 s)").isLessThan(5.0);
    System.out.printf("revoke elsewhere: refused %.2f s after the store's row was revoked, no restart%n", seconds);
  }

  @Test
  void readToken_listsPushes_withoutAddressesOrTokenNames_adminSeesThem() throws Exception {
    KernelResult result = Fixtures.result(null, null, "lab-gpu", Fixtures.gpu("lab-gpu", 0), 1, true, T);
    HttpResponse<String> pushed = http.write("POST", "/api/pushes?host=lab-gpu&file=a.json",
        JsonCodec.MAPPER.writeValueAsString(List.of(result)), ADMIN);
    assertThat(pushed.statusCode()).as(pushed.body()).isEqualTo(201);
    String pushId = Http.json(pushed).get("pushId").asText();
    // The results a push stored keep the token's name in their origin (who pushed is part of a result's story) but
    // not the address.
    assertThat(http.get("/api/results").body()).contains("\"origin\"").doesNotContain("127.0.0.1")
        .doesNotContain("\"address\"");
    List<HttpResponse<String>> seenBy = new java.util.ArrayList<>(List.of(http.get("/api/pushes"),
        http.get("/api/pushes/" + pushId)));
    String read = "Bearer " + create("reader", List.of("read"), null);
    seenBy.addAll(List.of(http.get("/api/pushes", null, read), http.get("/api/pushes/" + pushId, null, read)));

    for (HttpResponse<String> seen : seenBy) {
      assertThat(seen.statusCode()).as(seen.body()).isEqualTo(200);
      assertThat(seen.body()).as("%s", seen.uri()).doesNotContain("127.0.0.1").doesNotContain("remoteAddress")
          .doesNotContain("\"address\"").doesNotContain("\"token\"").contains("lab-gpu");
    }
    JsonNode admin = Http.json(http.get("/api/pushes", null, ADMIN)).get(0);
    assertThat(admin.get("address").asText()).isEqualTo("127.0.0.1");
    assertThat(admin.get("token").asText()).isEqualTo("tests");
  }

  @Test
  void plainHttp_offLoopback_refusedAtStartUnlessAllowed() {
    assertThatThrownBy(() -> CoordinatorSettings.resolve(dir, "0.0.0.0", 0, Map.of(), "/h"))
        .hasMessageContaining("BUSLOAD_HTTP_HOST").hasMessageContaining("BUSLOAD_REST_TLS=on")
        .hasMessageContaining("BUSLOAD_ALLOW_PLAIN_HTTP=1");
    assertThatThrownBy(() -> CoordinatorSettings.resolve(dir, null, 0, Map.of("BUSLOAD_HTTP_HOST", "10.1.2.3"), "/h"))
        .hasMessageContaining("BUSLOAD_ALLOW_PLAIN_HTTP=1");
    try (io.busload.testsupport.LogCapture log = io.busload.testsupport.LogCapture.of(CoordinatorSettings.class)) {
      assertThat(CoordinatorSettings.resolve(dir, "0.0.0.0", 0, Map.of("BUSLOAD_ALLOW_PLAIN_HTTP", "1"), "/h")
          .httpHost()).isEqualTo("0.0.0.0");
      assertThat(log.events()).as("allowed, loudly").anySatisfy(e -> {
        assertThat(e.getLevel()).isEqualTo(ch.qos.logback.classic.Level.WARN);
        assertThat(e.getFormattedMessage()).contains("0.0.0.0").contains("BUSLOAD_ALLOW_PLAIN_HTTP=1")
            .contains("in clear");
      });
    }
    assertThat(CoordinatorSettings.resolve(dir, "localhost", 0, Map.of(), "/h").httpHost()).isEqualTo("localhost");
    assertThat(CoordinatorSettings.resolve(dir, "::1", 0, Map.of(), "/h").httpHost()).isEqualTo("::1");
  }

  /**
   * Seconds from now until a sweep written with {@code auth} is refused with 401, trying every 0.1 s; -1 when it is
   * still taken after {@code limit}.
   */
  private double secondsUntilRefused(String auth, Duration limit) throws InterruptedException {
    long start = System.nanoTime();
    while (System.nanoTime() - start < limit.toNanos()) {
      if (http.write("POST", "/api/sweeps", SWEEP, auth).statusCode() == 401) {
        return (System.nanoTime() - start) / 1e9;
      }
      Thread.sleep(100);
    }
    return -1;
  }
}
