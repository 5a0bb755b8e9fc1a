package io.busload.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import io.busload.agent.cpu.CpuDevice;
import io.busload.agent.device.Devices;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code run --device A,B} (or {@code all}) measures the suite on every named device at once, one worker
 * each, and every result names the devices that were measuring beside it. Two CPU devices stand in for two GPUs.
 */
class RunDevicesAtOnceTest extends InProcessCli {
  private final CpuDevice a = CpuDevice.create("twin-a");
  private final CpuDevice b = CpuDevice.create("twin-b");

  @BeforeEach
  void twoDevices() {
    RunCommand.DISCOVER = () -> Devices.of(List.of(a, b));
  }

  @AfterEach
  void discoverAgain() {
    RunCommand.DISCOVER = Devices::discover;
  }

  @Test
  void twoDevices_bothMeasuredAtOnce_eachResultNamesTheOtherWhenItMeasuredMeanwhile() throws Exception {
    int exit = run("run", "--suite", "stride", "--device", "twin-a/cpu, twin-b/cpu", "--format", "json", "--option",
        "elements=65536");

    assertThat(exit).as(err.toString()).isZero();
    List<KernelResult> results = JsonCodec.MAPPER.readValue(out.toString(), new TypeReference<>() {});
    assertThat(results).hasSize(18).allSatisfy(r -> assertThat(r.valid()).isTrue());
    for (String[] pair : List.of(new String[] {"twin-a/cpu", "twin-b/cpu"}, new String[] {"twin-b/cpu",
        "twin-a/cpu"})) {
      List<KernelResult> mine = results.stream().filter(r -> r.device().id().equals(pair[0])).toList();
      assertThat(mine).hasSize(9);
      assertThat(mine).allSatisfy(r -> assertThat(r.sampling().othersBusy()).isSubsetOf(pair[1]));
      // Started together, the two runs overlap: some of each one's cases were sampled beside the other.
      assertThat(mine).anySatisfy(r -> {
        assertThat(r.sampling().othersBusy()).containsExactly(pair[1]);
        assertThat(r.method()).contains("measured while " + pair[1] + " measured too");
      });
    }
  }

  @Test
  void twoDevicesWithPlanOut_refusedNamingTheOption() {
    int exit = run("run", "--suite", "stride", "--device", "twin-a/cpu,twin-b/cpu", "--plan-out", "plan.txt");

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString()).contains("--plan-out takes one device; --device names 2 (cpu, cpu)");
    assertThat(out.toString()).isEmpty();
  }

  @Test
  void sameDeviceTwice_refused() {
    assertThat(run("run", "--suite", "stride", "--device", "twin-a/cpu,twin-a/cpu")).isEqualTo(2);
    assertThat(err.toString()).contains("--device names cpu twice");
  }

  @Test
  void unknownDeviceInTheList_refusedNamingIt() {
    assertThat(run("run", "--suite", "stride", "--device", "twin-a/cpu,cuda:7")).isEqualTo(2);
    assertThat(err.toString()).contains("unknown device 'cuda:7'");
  }
}
