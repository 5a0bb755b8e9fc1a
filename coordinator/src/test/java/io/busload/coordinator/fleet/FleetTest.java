package io.busload.coordinator.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.coordinator.Fixtures;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.Heartbeat;
import io.busload.protocol.RunStatus;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Membership with the time passed in: no sleeps. */
class FleetTest {
  private static final DeviceInfo GPU = Fixtures.gpu("h1", 0);
  private static final Instant T0 = Instant.parse("2026-11-01T10:00:00Z");

  @Test
  void heartbeat_unknownAgent_ignored() {
    Fleet fleet = new Fleet();

    assertThat(fleet.heartbeat(Fixtures.heartbeat("stranger"), T0)).isFalse();
    assertThat(fleet.view(T0)).isEmpty();
  }

  @Test
  void expire_tenSecondsWithoutHeartbeat_offlineOnceAndDevicesNotOnline() {
    Fleet fleet = new Fleet();
    fleet.hello(Fixtures.hello("a1", GPU), T0);
    fleet.heartbeat(Fixtures.heartbeat("a1"), T0.plusSeconds(2));

    assertThat(fleet.expire(T0.plusSeconds(12))).isEmpty();
    assertThat(fleet.online("a1", T0.plusSeconds(12))).isTrue();
    assertThat(fleet.expire(T0.plusSeconds(12).plusMillis(1))).containsExactly("a1");
    assertThat(fleet.expire(T0.plusSeconds(20))).isEmpty();
    assertThat(fleet.onlineDevices(T0.plusSeconds(20))).isEmpty();
    assertThat(fleet.knowsDevice(GPU.id())).isTrue();
  }

  @Test
  void heartbeat_afterOffline_onlineAgain() {
    Fleet fleet = new Fleet();
    fleet.hello(Fixtures.hello("a1", GPU), T0);
    fleet.expire(T0.plusSeconds(30));

    fleet.heartbeat(Fixtures.heartbeat("a1"), T0.plusSeconds(31));

    assertThat(fleet.onlineDevices(T0.plusSeconds(31))).containsExactly(GPU.id());
  }

  @Test
  void view_heartbeatThenStatus_showsWhatTheDeviceRunsNow() {
    Fleet fleet = new Fleet();
    fleet.hello(Fixtures.hello("a1", GPU), T0);
    fleet.heartbeat(Fixtures.heartbeat("a1", new Heartbeat.DeviceState(GPU.id(), "r1", "stride_copy_fp32", 2, 7)), T0);

    DeviceView running = fleet.view(T0).getFirst().devices().getFirst();
    fleet.status(Fixtures.status("r1", "s1", "a1", GPU.id(), RunStatus.State.DONE, 7, 7));
    DeviceView idle = fleet.view(T0).getFirst().devices().getFirst();

    assertThat(running.runId()).isEqualTo("r1");
    assertThat(running.kernel()).isEqualTo("stride_copy_fp32");
    assertThat(running.completed()).isEqualTo(2);
    assertThat(running.fingerprint()).isEqualTo(GPU.fingerprint());
    assertThat(idle.runId()).isNull();
  }

  @Test
  void hello_deviceTakenBackByItsOwner_shownUnderTheOwnerOnly_andKeptThroughTheOthersNextHello() {
    Fleet fleet = new Fleet();
    DeviceInfo own = Fixtures.gpu("a2", 0);
    fleet.hello(Fixtures.hello("a2", own, GPU), T0);

    fleet.hello(Fixtures.hello("h1", GPU), T0.plusSeconds(1));
    fleet.hello(Fixtures.hello("a2", own), T0.plusSeconds(2));

    assertThat(fleet.agentOf(GPU.id())).contains("h1");
    assertThat(fleet.devicesOf("a2")).containsExactly(own.id());
    assertThat(fleet.devicesOf("h1")).containsExactly(GPU.id());
  }
}
