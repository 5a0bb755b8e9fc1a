package io.busload.agent.measure;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.agent.cpu.CpuDevice;
import io.busload.agent.device.DeviceConditions;
import io.busload.agent.device.Device;
import io.busload.agent.device.DeviceException;
import io.busload.agent.device.Workload;
import io.busload.kernels.DeviceLimits;
import io.busload.kernels.Program;
import io.busload.kernels.SuiteOptions;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.KernelResult;
import io.busload.protocol.Topology;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A host link's result is set against its PCIe link, where the fingerprint gives one, not HBM's peak. */
class LinkCeilingTest {
  /** The CPU backend, described as a device behind a PCIe gen4 x16 link (test data for the fingerprint only). */
  private record Linked(CpuDevice cpu, DeviceInfo info) implements Device {
    @Override public String shortId() { return cpu.shortId(); }
    @Override public DeviceLimits limits() { return cpu.limits(); }
    @Override public double sampleTargetSeconds() { return 1e-3; }
    @Override public double timeCapSeconds() { return 0.2; }
    @Override public String timerDescription() { return cpu.timerDescription(); }
    @Override public void attach() { cpu.attach(); }
    @Override public Workload prepare(Program program) { return cpu.prepare(program); }
    @Override public DeviceConditions conditions() { return cpu.conditions(); }
    @Override public io.busload.agent.device.ClockSensor clockSensor() { return cpu.clockSensor(); }
    @Override public String recover(DeviceException error) { return null; }
    @Override public void close() { cpu.close(); }
  }

  @Test
  void method_hostLinkOnADeviceWithPcieTopology_percentOfTheLinkNotOfPeak() {
    CpuDevice cpu = CpuDevice.create("test");
    Topology gen4 = new Topology(4, 16, 4, 16, 0, List.of(), "test data");
    try (Device device = new Linked(cpu, cpu.info().withTopology(gen4))) {
      device.attach();
      Plan plan = Plan.resolve("interconnect", SuiteOptions.parse(Map.of("bytes", "65536")), device.limits(), "cpu");
      Measurement measurement = new Measurement(device, new RunContext(null, null, "test", "0"), "fatbin");

      KernelResult h2d = measurement.measure("interconnect", plan.cases().stream()
          .filter(p -> p.kernelCase().spec().name().equals("h2d-ce-pinned")).findFirst().orElseThrow());
      KernelResult memcpy = measurement.measure("interconnect", plan.cases().getFirst());
      KernelResult both = measurement.measure("interconnect", plan.cases().stream()
          .filter(p -> p.kernelCase().spec().name().equals("bidir-ce-pinned")).findFirst().orElseThrow());

      assertThat(h2d.valid()).as(h2d.mismatches().toString()).isTrue();
      assertThat(h2d.method()).contains("% of the PCIe gen4 x16 link's 31.5 GB/s each way")
          .contains("bytes = bytes crossing the link");
      assertThat(memcpy.method()).doesNotContain("PCIe");
      // Both directions' bytes, set against both directions' rate.
      assertThat(both.method()).contains("% of the PCIe gen4 x16 link's 63.0 GB/s both ways");
    }
  }
}
