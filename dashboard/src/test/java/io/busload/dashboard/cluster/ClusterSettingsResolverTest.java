package io.busload.dashboard.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.protocol.cluster.ClusterSettings;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

class ClusterSettingsResolverTest {

  @Test
  void resolve_nothingSet_loopbackDefaultsWithDashboardPort() {
    ClusterSettings settings = ClusterSettingsResolver.resolve(Map.of(), new MockEnvironment());

    assertThat(settings.clusterName()).isEqualTo("busload");
    assertThat(settings.eventBusPort()).isEqualTo(7702);
    assertThat(settings.role()).isEqualTo(ClusterSettings.DASHBOARD);
    assertThat(settings.liteMember()).isTrue();
  }

  @Test
  void resolve_springPropertiesAndEnvironment_propertiesWin() {
    MockEnvironment spring = new MockEnvironment()
        .withProperty("busload.cluster.name", "from-property")
        .withProperty("busload.cluster.port", "16000")
        .withProperty("busload.eventbus.port", "0");

    ClusterSettings settings = ClusterSettingsResolver.resolve(
        Map.of("BUSLOAD_CLUSTER_NAME", "from-env", "BUSLOAD_CLUSTER_MEMBERS", "10.0.0.1:5701,10.0.0.2"), spring);

    assertThat(settings.clusterName()).isEqualTo("from-property");
    assertThat(settings.clusterPort()).isEqualTo(16000);
    assertThat(settings.eventBusPort()).isZero();
    assertThat(settings.members()).containsExactly("10.0.0.1:5701", "10.0.0.2");
  }
}
