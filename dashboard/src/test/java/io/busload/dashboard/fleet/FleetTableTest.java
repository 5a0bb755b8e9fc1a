package io.busload.dashboard.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.dashboard.coordinator.Agent;
import io.busload.dashboard.coordinator.AgentDevice;
import io.busload.dashboard.fleet.FleetRows.Activity;
import io.busload.dashboard.fleet.FleetTable.Counts;
import io.busload.dashboard.fleet.FleetTable.Filter;
import io.busload.dashboard.fleet.FleetTable.GroupBy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FleetTableTest {
  /** Three hosts: two H100 hosts in rack a (one busy device each), one offline H200 host without labels. */
  private static final FleetTable TABLE = new FleetTable(FleetRows.of(List.of(
      agent("b", "host-b", true, "NVIDIA H100", List.of("rack=a", "lab-east"), true),
      agent("a", "host-a", true, "NVIDIA H100", List.of("rack=a"), true),
      agent("c", "host-c", false, "NVIDIA H200", List.of(), false))));

  private static Agent agent(String id, String host, boolean online, String model, List<String> labels, boolean busy) {
    List<AgentDevice> devices = new ArrayList<>();
    for (int g = 0; g < 2; g++) {
      devices.add(new AgentDevice(host + "/cuda:" + g, "cuda", model, "9.0", "fp-" + host + g,
          busy && g == 0 ? "run-1" : null, null, null, null));
    }
    return new Agent(id, host, "0.1.0", online, Instant.EPOCH, devices, labels);
  }

  @Test
  void counts_wholeFleet_busyIdleOffline() {
    assertThat(TABLE.counts()).isEqualTo(new Counts(6, 2, 2, 2));
    assertThat(TABLE.hosts()).isEqualTo(3);
  }

  @Test
  void page_offsetAndLimit_rowsInHostOrder() {
    assertThat(TABLE.page(Filter.ALL, 1, 2)).extracting(FleetRows.Row::deviceId)
        .containsExactly("host-a/cuda:1", "host-b/cuda:0");
    assertThat(TABLE.count(Filter.ALL)).isEqualTo(6);
  }

  @Test
  void groups_byLabel_aHostInEachOfItsLabelsAndUnlabelledApart() {
    List<FleetTable.Group> groups = TABLE.groups(new Filter("", null, GroupBy.LABEL, null));

    assertThat(groups).extracting(FleetTable.Group::key).containsExactly(FleetTable.NO_LABEL, "lab-east", "rack=a");
    assertThat(groups.get(2).counts()).isEqualTo(new Counts(4, 2, 2, 0));
    assertThat(groups.get(0).counts()).isEqualTo(new Counts(2, 0, 0, 2));
  }

  @Test
  void filter_textStateAndGroup_narrowTogether() {
    assertThat(TABLE.count(new Filter("H100", null, GroupBy.NONE, null))).isEqualTo(4);
    assertThat(TABLE.count(new Filter("  FP-HOST-A1 ", null, GroupBy.NONE, null))).isEqualTo(1);
    assertThat(TABLE.count(new Filter("", Activity.BUSY, GroupBy.NONE, null))).isEqualTo(2);
    Filter h200 = new Filter("", null, GroupBy.MODEL, "NVIDIA H200");
    assertThat(TABLE.counts(h200)).isEqualTo(new Counts(2, 0, 0, 2));
    assertThat(TABLE.count(new Filter("lab-east", Activity.IDLE, GroupBy.HOST, "host-b"))).isEqualTo(1);
    assertThat(TABLE.count(new Filter("nothing like it", null, GroupBy.NONE, null))).isZero();
  }
}
