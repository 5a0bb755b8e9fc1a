package io.busload.dashboard.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.busload.coordinator.Coordinator;
import io.busload.coordinator.CoordinatorSettings;
import io.busload.coordinator.api.ApiTokens;
import io.busload.coordinator.store.DatabaseSettings;
import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.AgentHello;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.Protocol;
import io.busload.protocol.cluster.ClusterSettings;
import io.busload.protocol.cluster.FleetTls;
import io.busload.testsupport.FleetCerts;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard against a coordinator whose REST API speaks HTTPS only ({@code BUSLOAD_REST_TLS=on}), with
 * certificates from the real {@code ./busload certs}: with its own fleet directory ({@code BUSLOAD_TLS_DIR}) it
 * trusts the coordinator CA and reads and writes; without it, the JDK's CAs refuse the coordinator.
 */
class CoordinatorClientTlsTest {
  private static final String TOKEN = "dashboard-tls-token-Qm4v8ZpL2xK7nR0sWbT3yH6uJ9cE1aDf";

  @TempDir Path dir;

  @Test
  void httpsCoordinator_trustedThroughTheDashboardsFleetDirectory_readsAndWrites() throws Exception {
    Path certs = FleetCerts.issue(dir.resolve("certs"), "--coordinator", "c1@127.0.0.1", "--dashboard", "d1@127.0.0.1");
    Path data = Files.createDirectories(dir.resolve("data"));
    Files.writeString(data.resolve(CoordinatorSettings.API_TOKENS_FILE_NAME),
        "dashboard:" + ApiTokens.sha256Hex(TOKEN) + "\n");
    ClusterSettings cluster = new ClusterSettings("unused", "127.0.0.1", null, 5701, 0, List.of("127.0.0.1"),
        ClusterSettings.COORDINATOR).withTls(FleetTls.inDirectory(certs.resolve("coordinator-c1")));
    Vertx vertx = Vertx.vertx();
    Coordinator coordinator = Coordinator.deploy(vertx, new CoordinatorSettings(data, "127.0.0.1", 0, cluster,
        DatabaseSettings.EMBEDDED, data.resolve(CoordinatorSettings.API_TOKENS_FILE_NAME), null, true))
        .await(180, TimeUnit.SECONDS);
    try {
      DeviceInfo gpu = new DeviceInfo("tls-host/cuda:0", DeviceInfo.CUDA, "NVIDIA H100 80GB HBM3", "GPU-t0", "9.0",
          132, 52_428_800L, 85_899_345_920L, 2_619_000_000L, 5120, 3.35e12, "580.65");
      Ack hello = vertx.eventBus().<Ack>request(Addresses.AGENT_HELLO, new AgentHello(Protocol.SCHEMA_VERSION,
          "tls-agent", "tls-host", "0.1.0", "fatbin-1", List.of(gpu), Instant.now())).await(10, TimeUnit.SECONDS).body();
      assertThat(hello.ok()).isTrue();
      String url = "https://127.0.0.1:" + coordinator.httpPort();

      CoordinatorClient trusting = new CoordinatorClient(url, TOKEN, "", certs.resolve("dashboard-d1").toString());
      CoordinatorClient jdkTrust = new CoordinatorClient(url, TOKEN, "", "");

      assertThat(trusting.devices()).extracting(Device::id).containsExactly("tls-host/cuda:0");
      Schedule created = trusting.createSchedule(new ScheduleInput("tls", "0 3 * * *", "UTC", "stride", Map.of(),
          new Target(Target.ALL, null), false));
      assertThat(trusting.schedules()).extracting(Schedule::id).containsExactly(created.id());
      assertThatThrownBy(jdkTrust::devices).isInstanceOf(CoordinatorException.class)
          .hasMessageContaining(url);
      System.out.println("dashboard rest tls: devices read and a schedule written over HTTPS with the fleet's"
          + " coordinator CA; without BUSLOAD_TLS_DIR the JDK's CAs refused the coordinator");
    } finally {
      coordinator.stop().await(30, TimeUnit.SECONDS);
      vertx.close().await(30, TimeUnit.SECONDS);
    }
  }
}
