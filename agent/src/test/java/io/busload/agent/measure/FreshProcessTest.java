package io.busload.agent.measure;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.kernels.Catalog;
import io.busload.kernels.SuiteOptions;
import io.busload.protocol.KernelResult;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The rest of a run in a real child JVM, as after a sticky CUDA error; here on the CPU backend. */
class FreshProcessTest {

  @Test
  void run_fromTheLastTwoCases_childMeasuresOnlyThemAndTheyAreStampedWithThisRun() throws Exception {
    int total = Catalog.cases("stride", SuiteOptions.parse(Map.of("elements", "4096"))).size();
    FreshProcess fresh = new FreshProcess("stride", "cpu", Map.of("elements", "4096"));

    List<KernelResult> rest = fresh.run(total - 2);

    assertThat(rest).hasSize(2);
    assertThat(rest).allSatisfy(r -> {
      assertThat(r.valid()).as(r.mismatches().toString()).isTrue();
      assertThat(r.device().kind()).isEqualTo("cpu");
    });
    assertThat(rest.getLast().params()).containsEntry("stride", 32);
    KernelResult stamped = FreshProcess.stamped(rest.getFirst(), new RunContext("run-1", "sweep-1", "agent-1", "v"));
    assertThat(stamped.runId()).isEqualTo("run-1");
    assertThat(stamped.sweepId()).isEqualTo("sweep-1");
    assertThat(stamped.agentId()).isEqualTo("agent-1");
    assertThat(stamped.id()).isEqualTo(rest.getFirst().id());
  }

  @Test
  void command_carriesSuiteDeviceFromCaseAndOptions() {
    List<String> command = new FreshProcess("faults", "cuda:0", Map.of("size", "1024")).command(2);
    assertThat(command).containsSubsequence("run", "--suite", "faults", "--device", "cuda:0", "--format", "json",
        "--from-case", "2").contains("--option=size=1024");
  }
}
