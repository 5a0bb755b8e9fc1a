package io.busload.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.coordinator.Fixtures;
import io.busload.coordinator.Http;
import io.busload.protocol.Addresses;
import io.busload.protocol.JsonCodec;
import io.busload.coordinator.store.DatabaseSettings;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Bad JSON, wrong types, huge bodies, bad cron and injection strings at every write endpoint, odd query
 * parameters at the read endpoints, against a real coordinator on loopback that knows one online device (so a
 * body is refused for what is wrong with it, not because nothing could run it).
 */
class RestFuzzTest {
  private static final List<String> LEAKS = List.of("Exception", "\tat ", "at io.", "at java.", "io.busload",
      "java.", "org.", "com.fasterxml", "Caused by");
  private static final List<String> INJECTIONS = List.of("'; DROP TABLE results; --", "1' OR '1'='1",
      "\" OR \"\"=\"", "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "${jndi:ldap://x/a}",
      "../../etc/passwd", "%00", "\u0000", "stride\u0000", "\uD83D\uDE00", "{{7*7}}", "$(rm -rf /)", "NaN",
      "-1", "1e309", "x".repeat(5000));
  private static final String DEVICE = "rest-host/cpu";

  @RegisterExtension final LocalCoordinator local = new LocalCoordinator();
  private Http http;
  private DatabaseSettings database;

  @BeforeEach
  void start() {
    database = local.settings().database();
    assertThat(local.request(Addresses.AGENT_HELLO, Fixtures.hello("rest-agent", Fixtures.cpu("rest-host"))).ok())
        .isTrue();
    http = local.http();
  }

  @Test
  void writeEndpoints_badBodies_problemNamingFieldNothingStored() throws Exception {
    Map<String, Long> before = rows();
    List<String> bodies = badBodies();
    List<String> scheduleBodies = badScheduleBodies();
    Answers answers = new Answers(true);
    answers.sendAll(bodies, List.of(new String[] {"POST", "/api/sweeps"}, new String[] {"POST", "/api/schedules"},
        new String[] {"PUT", "/api/schedules/no-such-schedule"}));
    // Bad only as schedules (a sweep takes no cron and ignores fields it does not know).
    answers.sendAll(scheduleBodies, List.of(new String[] {"POST", "/api/schedules"},
        new String[] {"PUT", "/api/schedules/no-such-schedule"}));
    // Bodies past the 1 MiB limit, one well-formed and one not.
    String huge = "{\"suite\":\"stride\",\"devices\":[\"" + "d".repeat(2 << 20) + "\"]}";
    for (String body : List.of(huge, "[".repeat(3 << 20))) {
      for (String path : List.of("/api/sweeps", "/api/schedules")) {
        answers.check("POST " + path + " huge body", http.post(path, body));
      }
    }
    // Actions on schedules that do not exist, with odd ids.
    for (String id : INJECTIONS.subList(0, 8)) {
      String encoded = URLEncoder.encode(id, StandardCharsets.UTF_8).replace("+", "%20");
      for (String path : List.of("/api/schedules/" + encoded + "/pause", "/api/schedules/" + encoded + "/resume")) {
        answers.check("POST " + path, http.post(path, ""));
      }
      answers.check("DELETE /api/schedules/" + encoded, http.delete("/api/schedules/" + encoded));
    }
    Map<String, Long> after = rows();

    assertThat(answers.failures).as("answers that were not a clean 4xx problem naming a field").isEmpty();
    assertThat(after).as("rows before and after").isEqualTo(before);
    // The endpoints do work: a good sweep and a good schedule are accepted afterwards.
    assertThat(http.post("/api/sweeps", "{\"suite\":\"stride\",\"devices\":[\"" + DEVICE + "\"]}").statusCode())
        .isEqualTo(201);
    assertThat(http.post("/api/schedules", "{\"cron\":\"0 3 * * *\",\"suite\":\"stride\"}").statusCode())
        .isEqualTo(201);
    System.out.printf("REST fuzz (writes): %d bad requests (%d bodies x 3 endpoints, %d schedule bodies x 2, 4 over 1 MiB, 24 odd ids), "
        + "statuses %s, clean problem+json naming a field: %d, leaks 0, rows before %s after %s%n",
        answers.requests, bodies.size(), scheduleBodies.size(), answers.statuses,
        answers.requests - answers.failures.size(), before, after);
  }

  @Test
  void readEndpoints_oddQueryParams_okOrProblemNamingFieldNever5xx() throws Exception {
    Map<String, List<String>> endpoints = new LinkedHashMap<>();
    endpoints.put("/api/results", List.of("sweepId", "device", "model", "kernel", "params", "from", "to", "limit",
        "after", "format"));
    endpoints.put("/api/sweeps", List.of("limit"));
    endpoints.put("/api/runs", List.of("state", "device", "limit"));
    endpoints.put("/api/comparisons", List.of("kernel", "params"));
    endpoints.put("/api/regressions", List.of("kind", "device", "kernel", "limit"));
    endpoints.put("/api/agents", List.of("limit"));
    endpoints.put("/api/devices", List.of("limit"));
    List<String> values = new ArrayList<>(INJECTIONS);
    values.addAll(List.of("", " ", "abc", "0", "-2147483649", "99999999999999999999", "1.5", "0x10", "true",
        "2026-13-45T00:00:00Z", "+200000-01-01T00:00:00Z", "-999999-01-01T00:00:00Z", "00000000-0000-0000-0000-000000000000",
        "csv", "CSV", "xml", "running", "DONE", "stride=1;elements=2", "\u202E", "\r\nX-Injected: 1"));
    Map<String, Long> before = rows();
    Answers answers = new Answers(false);
    for (Map.Entry<String, List<String>> endpoint : endpoints.entrySet()) {
      for (String param : endpoint.getValue()) {
        for (String value : values) {
          String query = endpoint.getKey() + "?" + param + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8)
              + (endpoint.getKey().equals("/api/comparisons") && !param.equals("kernel") ? "&kernel=stride_copy_fp32"
                  : "");
          answers.check(query.substring(0, Math.min(query.length(), 120)), http.get(query));
        }
      }
    }
    // Unknown parameters and repeated ones are ignored or refused, never a failure.
    for (String query : List.of("/api/results?nope=1", "/api/results?limit=1&limit=2", "/api/sweeps/%00",
        "/api/runs/" + "r".repeat(3000), "/api/results?" + "a=1&".repeat(500))) {
      answers.check(query.substring(0, Math.min(query.length(), 120)), http.get(query));
    }

    assertThat(answers.failures).as("5xx, leaks or problems without a field").isEmpty();
    assertThat(rows()).isEqualTo(before);
    System.out.printf("REST fuzz (reads): %d requests with odd query params on %d endpoints, statuses %s, "
        + "5xx 0, leaks 0%n", answers.requests, endpoints.size(), answers.statuses);
  }

  /**
   * Every answer of a fuzz run: how many of each status, and each that was not clean. For writes ({@code writes}),
   * clean is a 4xx problem naming its field; for reads, a 200 that leaks nothing or a 4xx problem.
   */
  private final class Answers {
    private final boolean writes;
    final Map<Integer, Integer> statuses = new TreeMap<>();
    final List<String> failures = new ArrayList<>();
    int requests;

    Answers(boolean writes) {
      this.writes = writes;
    }

    /** Sends each body to each endpoint (method, path). */
    void sendAll(List<String> bodies, List<String[]> endpoints) {
      for (String body : bodies) {
        for (String[] endpoint : endpoints) {
          HttpResponse<String> response = endpoint[0].equals("POST") ? http.post(endpoint[1], body)
              : http.put(endpoint[1], body);
          check(endpoint[0] + " " + endpoint[1] + " " + abbreviate(body), response);
        }
      }
    }

    void check(String request, HttpResponse<String> response) {
      requests++;
      statuses.merge(response.statusCode(), 1, Integer::sum);
      String problem = writes ? problem(response, true)
          : response.statusCode() == 200 ? leak(response.body()) : problem(response, false);
      if (problem != null) {
        failures.add(request + " -> " + problem);
      }
    }
  }

  /** Null when {@code response} is a 4xx application/problem+json naming a field and leaking nothing. */
  private static String problem(HttpResponse<String> response, boolean fieldRequired) {
    int status = response.statusCode();
    if (status < 400 || status >= 500) {
      return "status " + status + ": " + abbreviate(response.body());
    }
    String type = response.headers().firstValue("Content-Type").orElse("");
    if (!type.startsWith("application/problem+json")) {
      return "content type '" + type + "'";
    }
    JsonNode body;
    try {
      body = JsonCodec.MAPPER.readTree(response.body());
    } catch (java.io.IOException e) {
      return "not JSON: " + abbreviate(response.body());
    }
    if (body.path("status").asInt() != status || body.path("detail").asText().isEmpty()) {
      return "no status or detail: " + abbreviate(response.body());
    }
    JsonNode field = body.get("field");
    boolean notFound = status == 404 || status == 405;
    if ((fieldRequired || !notFound) && (field == null || field.isNull() || field.asText().isBlank())) {
      if (!(notFound && !fieldRequired)) {
        return "no field: " + abbreviate(response.body());
      }
    }
    return leak(response.body());
  }

  private static String leak(String body) {
    for (String leak : LEAKS) {
      if (body.contains(leak)) {
        return "leaks '" + leak + "': " + abbreviate(body);
      }
    }
    return null;
  }

  /** Bodies that must all be refused: not JSON, wrong types, bad values, bad cron, injections. */
  private static List<String> badBodies() {
    List<String> bodies = new ArrayList<>(List.of("", " ", "{", "}", "nul", "[1,2", "{\"suite\":", "{'suite':'stride'}",
        "{\"suite\":\"stride\",}", "\u0000", "\uFEFF{}", "[]", "1", "-1", "\"stride\"", "null", "true", "{}",
        "{\"suite\":1}", "{\"suite\":[\"stride\"]}", "{\"suite\":{}}", "{\"suite\":null}", "{\"suite\":true}",
        "{\"suite\":\"stride\",\"devices\":\"all\"}", "{\"suite\":\"stride\",\"devices\":[1]}",
        "{\"suite\":\"stride\",\"devices\":[null]}", "{\"suite\":\"stride\",\"devices\":[]}",
        "{\"suite\":\"stride\",\"devices\":[[\"" + DEVICE + "\"]]}", "{\"suite\":\"stride\",\"options\":[]}",
        "{\"suite\":\"stride\",\"options\":\"elements=1\"}", "{\"suite\":\"stride\",\"options\":{\"elements\":{}}}",
        "{\"suite\":\"stride\",\"options\":{\"elements\":\"-5\"}}", "{\"suite\":\"stride\",\"options\":{\"elements\":\"1e99\"}}",
        "{\"suite\":\"stride\",\"options\":{\"nope\":\"1\"}}",
        "[".repeat(5000) + "]".repeat(5000), "{\"suite\":\"" + "s".repeat(500_000) + "\"}"));
    for (String injection : INJECTIONS) {
      String quoted = JsonCodec.MAPPER.valueToTree(injection).toString();
      bodies.add("{\"suite\":" + quoted + ",\"devices\":[\"" + DEVICE + "\"],\"cron\":\"0 3 * * *\"}");
      bodies.add("{\"suite\":\"stride\",\"devices\":[" + quoted + "],\"cron\":\"0 3 * * *\",\"target\":{\"kind\":"
          + quoted + "}}");
      bodies.add("{\"suite\":\"stride\",\"devices\":[\"" + DEVICE + "\"],\"options\":{" + quoted + ":\"1\"},"
          + "\"cron\":" + quoted + "}");
      bodies.add("{\"suite\":\"stride\",\"devices\":[\"" + DEVICE + "\"],\"options\":{\"elements\":" + quoted + "},"
          + "\"cron\":\"0 3 * * *\",\"timeZone\":" + quoted + "}");
    }
    Random random = new Random(6);
    for (int i = 0; i < 40; i++) {
      byte[] bytes = new byte[1 + random.nextInt(200)];
      random.nextBytes(bytes);
      bodies.add(new String(bytes, StandardCharsets.ISO_8859_1));
    }
    return bodies;
  }

  /** Bodies a sweep would take (it ignores cron and the like) but a schedule must refuse. */
  private static List<String> badScheduleBodies() {
    List<String> bodies = new ArrayList<>(List.of("{\"cron\":5,\"suite\":\"stride\"}",
        "{\"cron\":\"* * *\",\"suite\":\"stride\"}", "{\"cron\":\"61 25 32 13 8\",\"suite\":\"stride\"}",
        "{\"cron\":\"0 3 * * * *\",\"suite\":\"stride\"}", "{\"cron\":\"@reboot\",\"suite\":\"stride\"}",
        "{\"cron\":\"\",\"suite\":\"stride\"}", "{\"cron\":\"0 3 * * *\",\"suite\":\"stride\",\"timeZone\":\"Mars/Base\"}",
        "{\"cron\":\"0 3 * * *\",\"suite\":\"stride\",\"paused\":\"yes\"}",
        "{\"cron\":\"0 3 * * *\",\"suite\":\"stride\",\"name\":\"" + "n".repeat(201) + "\"}",
        "{\"cron\":\"0 3 * * *\",\"suite\":\"stride\",\"target\":{\"kind\":\"nope\"}}",
        "{\"cron\":\"0 3 * * *\",\"suite\":\"stride\",\"target\":\"all\"}",
        "{\"cron\":\"0 3 * * *\",\"suite\":\"nope\"}", "{\"cron\":\"0 3 * * *\"}",
        "{\"cron\":\"0 3 * * *\",\"suite\":\"stride\",\"options\":{\"elements\":\"x\"}}"));
    for (String injection : INJECTIONS) {
      String quoted = JsonCodec.MAPPER.valueToTree(injection).toString();
      bodies.add("{\"cron\":" + quoted + ",\"suite\":\"stride\"}");
      if (!injection.equals("-1")) { // a valid zone offset (-01:00)
        bodies.add("{\"cron\":\"0 3 * * *\",\"suite\":\"stride\",\"timeZone\":" + quoted + "}");
      }
    }
    return bodies;
  }

  private Map<String, Long> rows() throws Exception {
    Map<String, Long> rows = new LinkedHashMap<>();
    try (Connection c = DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
        Statement s = c.createStatement()) {
      for (String table : List.of("sweeps", "runs", "schedules", "results", "agents", "devices")) {
        try (ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
          rs.next();
          rows.put(table, rs.getLong(1));
        }
      }
    }
    return rows;
  }

  private static String abbreviate(String text) {
    String flat = text.replaceAll("[\\p{Cntrl}]", "?");
    return flat.length() > 160 ? flat.substring(0, 160) + "..." : flat;
  }
}
