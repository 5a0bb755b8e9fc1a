package io.busload.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.coordinator.Fixtures;
import io.busload.coordinator.Http;
import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.AgentHello;
import io.busload.protocol.Protocol;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a coordinator tells about its versions, over real HTTP and a real PostgreSQL (docs/upgrading.md): the REST
 * API's version on every answer and {@code GET /api/version}, and a hello of a newer wire schema refused naming the
 * agent's release and schema beside the coordinator's, counted, and never stored.
 */
class VersionApiTest {
  @RegisterExtension final LocalCoordinator local = new LocalCoordinator();

  @Test
  void version_get_namesReleaseSchemasAndRestApiVersion() {
    JsonNode version = local.http().getJson("/api/version");
    assertThat(version.get("coordinatorVersion").asText()).isEqualTo(Protocol.releaseOf(RestApi.class));
    assertThat(version.get("schemaVersion").asInt()).isEqualTo(Protocol.SCHEMA_VERSION);
    assertThat(version.get("oldestSchemaVersion").asInt()).isEqualTo(Protocol.OLDEST_SCHEMA_VERSION);
    assertThat(version.get("restApiVersion").asInt()).isEqualTo(RestApi.VERSION);
  }

  @Test
  void apiAnswers_successErrorAndRefusal_eachCarryTheRestApiVersionHeader() {
    Http http = local.http();
    List<HttpResponse<String>> answers = List.of(http.get("/api/agents"), http.get("/api/no-such-thing"),
        http.get("/api/tokens", "application/json", null), http.post("/api/sweeps", "{"), http.get("/api/version"));

    assertThat(answers).extracting(HttpResponse::statusCode).containsExactly(200, 404, 401, 400, 200);
    for (HttpResponse<String> answer : answers) {
      assertThat(answer.headers().firstValue(RestApi.VERSION_HEADER)).as(answer.uri().toString())
          .contains(String.valueOf(RestApi.VERSION));
    }
  }

  @Test
  void hello_newerSchemaVersion_refusedNamingBothReleasesCountedAndNotStored() {
    AgentHello next = new AgentHello(Protocol.SCHEMA_VERSION + 1, "next-1", "next-1.example", "9.9.0", "abc",
        List.of(Fixtures.cpu("next-1")), Instant.now(), List.of());

    Ack ack = local.request(Addresses.AGENT_HELLO, next);

    assertThat(ack.ok()).isFalse();
    assertThat(ack.reason()).startsWith("schema version " + (Protocol.SCHEMA_VERSION + 1) + " is newer than "
        + Protocol.SCHEMA_VERSION)
        .contains("agent release 9.9.0 speaks schema " + (Protocol.SCHEMA_VERSION + 1))
        .contains("this coordinator (release " + Protocol.releaseOf(RestApi.class) + ") reads schema "
            + Protocol.OLDEST_SCHEMA_VERSION + " to " + Protocol.SCHEMA_VERSION)
        .contains("docs/upgrading.md");
    assertThat(Http.json(local.http().get("/api/agents")).findValuesAsText("agentId")).doesNotContain("next-1");
    assertThat(local.http().get("/metrics").body()).contains(
        "busload_messages_refused_total{address=\"busload.agent.hello\",reason=\"schema\"} 1.0");
  }
}
