package io.busload.agent.measure;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.kernels.DeviceLimits;
import io.busload.kernels.SuiteOptions;
import org.junit.jupiter.api.Test;

class HostRehearsalTest {

  @Test
  void rehearse_coalescingSuitePlannedForAGpu_everyKernelRunsSmallOnTheHostAndPassesItsCheck() {
    DeviceLimits h200 = new DeviceLimits(DeviceLimits.CUDA, 150_754_820_096L, 150_000_000_000L, 62_914_560L, 132);
    Plan plan = Plan.resolve("coalescing", SuiteOptions.DEFAULTS, h200, "cuda:0");
    long kernels = plan.cases().stream().filter(p -> p.program() != null)
        .map(p -> p.kernelCase().spec().name()).distinct().count();

    HostRehearsal.Outcome outcome = HostRehearsal.rehearse(plan);

    assertThat(outcome.kernels()).as("one small program per distinct kernel but cuBLAS's, which has no host reference")
        .isEqualTo((int) kernels - 1);
    assertThat(outcome.failures()).as("each small program's CPU reference passes its own check").isEmpty();
    assertThat(outcome.passed()).isEqualTo(outcome.kernels());
    assertThat(HostRehearsal.SMALL.defaultBudgetBytes()).isEqualTo(8L << 20);
  }
}
