package io.busload.agent.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.busload.protocol.bridge.BridgeClient.Endpoint;
import io.busload.testsupport.FleetCerts;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How an agent finds the fleet by default (the coordinators' bridge) and under which name. */
class BridgeSettingsTest {
  @Test
  void nothingSet_bridgeOnLoopbackAtTheDefaultPort() {
    BridgeSettings settings = BridgeSettings.fromEnvironment(Map.of()).orElseThrow();

    assertThat(settings.endpoints()).containsExactly(new Endpoint("127.0.0.1", 7704));
    assertThat(settings.tls()).isNull();
  }

  @Test
  void transportCluster_noBridge_andAnythingElseNamesTheVariable() {
    assertThat(BridgeSettings.fromEnvironment(Map.of("BUSLOAD_TRANSPORT", "cluster"))).isEmpty();
    assertThat(BridgeSettings.fromEnvironment(Map.of("BUSLOAD_TRANSPORT", "bridge"))).isPresent();
    assertThatThrownBy(() -> BridgeSettings.fromEnvironment(Map.of("BUSLOAD_TRANSPORT", "mesh")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("BUSLOAD_TRANSPORT");
  }

  @Test
  void clusterMembers_areTheCoordinatorsBridges_atTheirPort() {
    Map<String, String> env = Map.of("BUSLOAD_CLUSTER_MEMBERS", "10.0.0.10:5701, 10.0.0.11,[fd00::12]:5701,10.0.0.10",
        "BUSLOAD_BRIDGE_PORT", "7443", "BUSLOAD_TLS", "off");

    assertThat(BridgeSettings.fromEnvironment(env).orElseThrow().endpoints()).containsExactly(
        new Endpoint("10.0.0.10", 7443), new Endpoint("10.0.0.11", 7443), new Endpoint("fd00::12", 7443));
  }

  @Test
  void bridgeNamed_winsOverMembers() {
    Map<String, String> env = Map.of("BUSLOAD_CLUSTER_MEMBERS", "127.0.0.2", "BUSLOAD_BRIDGE", "localhost:9000");

    assertThat(BridgeSettings.fromEnvironment(env).orElseThrow().endpoints())
        .containsExactly(new Endpoint("localhost", 9000));
  }

  @Test
  void badSettings_refusedNamingTheVariable() {
    assertThatThrownBy(() -> BridgeSettings.fromEnvironment(Map.of("BUSLOAD_CLUSTER_MEMBERS", "10.0.0.10")))
        .as("plain off loopback").hasMessageStartingWith("BUSLOAD_BRIDGE").hasMessageContaining("BUSLOAD_TLS_DIR");
    assertThatThrownBy(() -> BridgeSettings.fromEnvironment(Map.of("BUSLOAD_BRIDGE_PORT", "off")))
        .hasMessageStartingWith("BUSLOAD_BRIDGE_PORT=off").hasMessageContaining("BUSLOAD_TRANSPORT=cluster");
    assertThatThrownBy(() -> BridgeSettings.fromEnvironment(Map.of("BUSLOAD_BRIDGE_PORT", "70000")))
        .hasMessageStartingWith("BUSLOAD_BRIDGE_PORT");
    assertThatThrownBy(() -> BridgeSettings.fromEnvironment(Map.of("BUSLOAD_CLUSTER_MEMBERS", " , ")))
        .hasMessageStartingWith("BUSLOAD_CLUSTER_MEMBERS");
  }

  @Test
  void withCertificate_agentIdIsItsName_andAnotherIdStopsTheAgent(@TempDir Path dir) throws Exception {
    Path certs = FleetCerts.issue(dir.resolve("fleet"), "--agent", "gpu7@127.0.0.1");
    String tlsDir = certs.resolve("agent-gpu7").toString();
    BridgeSettings settings = BridgeSettings.fromEnvironment(Map.of("BUSLOAD_TLS_DIR", tlsDir)).orElseThrow();

    assertThat(settings.agentId(Map.of(), "host.example")).isEqualTo("gpu7");
    assertThat(settings.agentId(Map.of("BUSLOAD_AGENT_ID", "gpu7"), "host.example")).isEqualTo("gpu7");
    assertThatThrownBy(() -> settings.agentId(Map.of("BUSLOAD_AGENT_ID", "gpu8"), "host.example"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("BUSLOAD_AGENT_ID=gpu8").hasMessageContaining("'gpu7'");
  }

  @Test
  void withoutCertificate_agentIdAsBefore() {
    BridgeSettings plain = BridgeSettings.fromEnvironment(Map.of()).orElseThrow();

    assertThat(plain.agentId(Map.of(), "host.example")).isEqualTo("host.example");
    assertThat(plain.agentId(Map.of("BUSLOAD_AGENT_ID", "a1"), "host.example")).isEqualTo("a1");
  }
}
