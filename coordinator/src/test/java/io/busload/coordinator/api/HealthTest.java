package io.busload.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.coordinator.Http;
import io.busload.coordinator.TestDatabase;
import io.busload.coordinator.store.DatabaseSettings;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The probe routes deploy/kubernetes points at, on a running coordinator with its store on the shared test
 * PostgreSQL, over real HTTP. The store is taken away by dropping its database on the server.
 */
class HealthTest {
  @RegisterExtension final LocalCoordinator local = new LocalCoordinator();

  @Test
  void health_runningCoordinator_answersUp() {
    assertThat(local.http().getJson("/health").get("status").asText()).isEqualTo("up");
  }

  @Test
  void ready_storeAndEventBusUp_answersReady() {
    HttpResponse<String> ready = local.http().get("/ready");

    assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
    JsonNode body = Http.json(ready);
    assertThat(body.get("database").asText()).isEqualTo("up");
    assertThat(body.get("eventBus").asText()).isEqualTo("up");
  }

  @Test
  void ready_databaseDropped_answers503NamingDatabaseWhileLivenessStaysUp() throws Exception {
    DatabaseSettings store = local.settings().database();
    String url = store.jdbcUrl();
    int slash = url.lastIndexOf('/');
    int query = url.indexOf('?', slash);
    String name = url.substring(slash + 1, query < 0 ? url.length() : query);
    DatabaseSettings server = new DatabaseSettings(url.substring(0, slash + 1) + "postgres"
        + (query < 0 ? "" : url.substring(query)), store.user(), store.password());
    try (Connection c = TestDatabase.connect(server); Statement s = c.createStatement()) {
      s.execute("DROP DATABASE " + name + " WITH (FORCE)");
    }

    HttpResponse<String> ready = local.http().get("/ready");

    assertThat(ready.statusCode()).as(ready.body()).isEqualTo(503);
    JsonNode body = Http.json(ready);
    assertThat(body.get("database").asText()).isEqualTo("down");
    assertThat(body.get("eventBus").asText()).isEqualTo("up");
    assertThat(local.http().get("/health").statusCode()).isEqualTo(200);
  }
}
