package io.busload.agent.measure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.busload.agent.cpu.CpuDevice;
import io.busload.agent.cuda.CudaDevice;
import io.busload.agent.cuda.CudaDiscovery;
import io.busload.agent.device.Device;
import io.busload.kernels.SuiteOptions;
import io.busload.kernels.families.Mutants;
import io.busload.protocol.KernelResult;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every deliberately wrong kernel of suite {@code mutants} comes out invalid through the agent's own
 * pipeline (fill, poison, launch, check, time, check again), and the memcpy beside them stays valid. On the CPU
 * backend always; on every CUDA device this machine has (the lead runs it on the GPU hosts; skipped here
 * without one).
 */
class MutantsTest {
  /** Short: these results are never speeds, only the checks matter. */
  private static final StoppingRule QUICK = new StoppingRule(3, 3, 0.5, 0.2, 5);

  @Test
  void cpu_everyMutant_invalidAndTheCeilingValid() {
    CpuDevice cpu = CpuDevice.create("testhost");
    try {
      cpu.attach();
      assertEveryMutantFails(cpu);
    } finally {
      cpu.close();
    }
  }

  @Test
  void cuda_everyMutant_invalidAndTheCeilingValid() {
    List<CudaDevice> gpus = CudaDiscovery.discover("testhost");
    assumeTrue(!gpus.isEmpty(), () -> "no CUDA device here: " + CudaDiscovery.lastReason());
    for (CudaDevice gpu : gpus) {
      try {
        gpu.attach();
        assertEveryMutantFails(gpu);
      } finally {
        gpu.close();
      }
    }
  }

  private static void assertEveryMutantFails(Device device) {
    Plan plan = Plan.resolve(Mutants.NAME, SuiteOptions.DEFAULTS, device.limits(), device.shortId());
    List<KernelResult> results = new Measurement(device, new RunContext(null, null, "test", "test"), "test", QUICK)
        .run(plan, Progress.NONE);

    assertThat(results).hasSize(1 + Mutants.Variant.ALL.size());
    assertThat(results.getFirst().kernel()).isEqualTo("memcpy-d2d");
    assertThat(results.getFirst().valid()).as("memcpy on %s: %s", device.shortId(), results.getFirst().mismatches())
        .isTrue();
    for (KernelResult r : results.subList(1, results.size())) {
      assertThat(r.valid()).as("%s on %s", r.kernel(), device.shortId()).isFalse();
      assertThat(r.status()).as("%s on %s: %s", r.kernel(), device.shortId(), r.method())
          .isEqualTo(io.busload.protocol.ResultStatus.CHECK_FAILED);
      assertThat(r.bandwidth()).isNull();
      assertThat(r.mismatches()).as(r.kernel()).isNotEmpty();
    }
    KernelResult late = results.stream().filter(r -> r.kernel().equals(Mutants.Variant.COPY_LATE.kernel()))
        .findFirst().orElseThrow();
    assertThat(late.mismatches().getFirst()).as("the late mutant passes its first check").startsWith("after ");
    KernelResult shortTile = results.stream()
        .filter(r -> r.kernel().equals(Mutants.Variant.MATMUL_SHORT_TILE.kernel())).findFirst().orElseThrow();
    assertThat(shortTile.mismatches()).as("rows 32..63 only").allMatch(m -> m.matches("(C\\[(3[2-9]|[45][0-9]|6[0-3])\\].*|\\d+ of .*)"));
  }
}
