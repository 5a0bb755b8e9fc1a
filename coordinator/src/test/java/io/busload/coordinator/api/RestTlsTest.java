package io.busload.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.busload.coordinator.Coordinator;
import io.busload.coordinator.CoordinatorSettings;
import io.busload.coordinator.Http;
import io.busload.protocol.cluster.FleetTls;
import io.busload.testsupport.FleetCerts;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With {@code BUSLOAD_REST_TLS=on} the REST API speaks HTTPS only, with the coordinator's certificate from
 * the real {@code ./busload certs}, so an API token never crosses the network in clear. A client that trusts the
 * fleet's coordinator CA (a dashboard's trust store) gets in; one that does not, or that speaks plain HTTP, does
 * not.
 */
class RestTlsTest {
  @TempDir static Path dir;
  private static Vertx vertx;
  private static Coordinator coordinator;
  private static Path certs;

  @BeforeAll
  static void start() throws Exception {
    certs = FleetCerts.issue(dir.resolve("certs"), "--coordinator", "c1@127.0.0.1", "--dashboard", "d1@127.0.0.1");
    CoordinatorSettings settings = RestApiTestSettings.withFleetTls(dir.resolve("data"), certs, true);
    vertx = Vertx.vertx();
    coordinator = Coordinator.deploy(vertx, settings).await(60, TimeUnit.SECONDS);
    vertx.eventBus().request(io.busload.protocol.Addresses.AGENT_HELLO, io.busload.coordinator.Fixtures.hello(
        "tls-agent", io.busload.coordinator.Fixtures.gpu("tls-host", 0))).await(10, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() throws Exception {
    LocalCoordinator.stop(coordinator, vertx);
  }

  @Test
  void https_clientTrustingTheCoordinatorCa_readsAndWritesWithToken() throws Exception {
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
        .sslContext(FleetTls.inDirectory(certs.resolve("dashboard-d1")).trustContext()).build();

    HttpResponse<String> read = client.send(request("/api/agents").GET().build(), HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> write = client.send(request("/api/schedules").header("Content-Type", "application/json")
        .header("Authorization", "Bearer " + Http.TOKEN)
        .POST(HttpRequest.BodyPublishers.ofString("{\"cron\":\"0 3 * * *\",\"suite\":\"stride\"}")).build(),
        HttpResponse.BodyHandlers.ofString());

    assertThat(read.statusCode()).isEqualTo(200);
    assertThat(write.statusCode()).as(write.body()).isEqualTo(201);
    assertThat(read.sslSession()).as("over TLS").isPresent();
    System.out.printf("rest tls: %s with %s, read 200, token write 201%n", read.sslSession().get().getProtocol(),
        read.sslSession().get().getCipherSuite());
  }

  @Test
  void https_clientWithoutTheFleetCa_refusedInTheHandshake() {
    HttpClient jdkTrust = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    assertThatThrownBy(() -> jdkTrust.send(request("/api/agents").GET().build(), HttpResponse.BodyHandlers.ofString()))
        .isInstanceOf(SSLHandshakeException.class);
  }

  @Test
  void plainHttp_toTheHttpsPort_getsNoAnswer() {
    HttpClient plain = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + coordinator.httpPort() + "/api/agents"))
        .header("Authorization", "Bearer " + Http.TOKEN).timeout(Duration.ofSeconds(10)).GET().build();

    assertThatThrownBy(() -> plain.send(request, HttpResponse.BodyHandlers.ofString()))
        .as("a plain HTTP request (its token in clear) is not served").isInstanceOf(IOException.class);
  }

  @Test
  void settings_restTlsOnWithoutFleetCertificateOrBadValue_refusedNamingTheVariable() {
    assertThatThrownBy(() -> CoordinatorSettings.resolve(dir, null, null, Map.of("BUSLOAD_REST_TLS", "on"), "/h"))
        .hasMessageContaining("BUSLOAD_REST_TLS=on").hasMessageContaining("BUSLOAD_TLS_DIR");
    assertThatThrownBy(() -> CoordinatorSettings.resolve(dir, null, null, Map.of("BUSLOAD_REST_TLS", "yes"), "/h"))
        .hasMessageContaining("BUSLOAD_REST_TLS");
    assertThat(CoordinatorSettings.resolve(dir, null, null, Map.of("BUSLOAD_REST_TLS", "on", "BUSLOAD_TLS_DIR",
        certs.resolve("coordinator-c1").toString()), "/h").restTls()).isTrue();
    assertThat(CoordinatorSettings.resolve(dir, null, null, Map.of(), "/h").restTls()).isFalse();
  }

  private static HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + coordinator.httpPort() + path))
        .timeout(Duration.ofSeconds(10));
  }
}
