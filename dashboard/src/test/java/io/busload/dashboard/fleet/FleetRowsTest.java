package io.busload.dashboard.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.dashboard.coordinator.Agent;
import io.busload.dashboard.coordinator.AgentDevice;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class FleetRowsTest {
  private static final AgentDevice IDLE_GPU = new AgentDevice("b/cuda:0", "cuda", "NVIDIA H200", "9.0",
      "0123456789abcdef", null, null, null, null);
  private static final AgentDevice BUSY_CPU = new AgentDevice("b/cpu", "cpu", "CPU: Test", null, "fedcba9876543210",
      "run-7", "stride-copy-fp32", 3, 10);

  @Test
  void of_agentWithTwoDevices_oneRowPerDeviceWithWhatItRuns() {
    Agent agent = new Agent("b", "host-b", "0.1.0", true, Instant.EPOCH, List.of(IDLE_GPU, BUSY_CPU));

    List<FleetRows.Row> rows = FleetRows.of(List.of(agent));

    assertThat(rows).extracting(FleetRows.Row::deviceId).containsExactly("b/cuda:0", "b/cpu");
    assertThat(rows).extracting(FleetRows.Row::now).containsExactly("idle", "run run-7: stride-copy-fp32 (3/10)");
    assertThat(rows.get(0).fingerprint()).isEqualTo("0123456789abcdef");
    assertThat(rows.get(0).state()).isEqualTo("online");
  }

  @Test
  void of_offlineAgent_claimsNoCurrentRun() {
    Agent agent = new Agent("b", "host-b", "0.1.0", false, Instant.EPOCH, List.of(BUSY_CPU));

    FleetRows.Row row = FleetRows.of(List.of(agent)).getFirst();

    assertThat(row.state()).isEqualTo("offline");
    assertThat(row.now()).isEqualTo("unreachable");
  }

  @Test
  void of_agentWithoutDevices_stillHasARow() {
    Agent agent = new Agent("a", "host-a", "0.1.0", true, null, List.of());

    assertThat(FleetRows.of(List.of(agent))).singleElement()
        .satisfies(row -> assertThat(row.deviceName()).isEqualTo("no devices reported"));
  }
}
