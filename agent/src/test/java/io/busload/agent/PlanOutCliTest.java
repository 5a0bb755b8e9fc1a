package io.busload.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.agent.crosscheck.PlanFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code run --plan-out} and {@code --profile} in-process on the CPU (no GPU, no ncu needed). */
class PlanOutCliTest extends InProcessCli {
  @Test
  void planOut_strideTiny_writesEveryCaseAndMeasuresNothing(@TempDir Path dir) throws Exception {
    Path plan = dir.resolve("plan.txt");

    int exit = run("run", "--suite", "stride", "--device", "cpu", "--option", "elements=4096", "--plan-out",
        plan.toString());

    assertThat(exit).as(err.toString()).isZero();
    assertThat(out.toString()).isEmpty();
    assertThat(err.toString()).contains("plan of 9 cases written to").contains("nothing measured");
    List<PlanFile.Case> cases = PlanFile.parse(Files.readString(plan));
    assertThat(cases).hasSize(9).allMatch(PlanFile.Case::runs);
    assertThat(cases.getFirst().kernel()).isEqualTo("memcpy-d2d");
    // As the CSV's params column (ResultCsv): names in alphabetical order.
    assertThat(cases.get(1).params()).isEqualTo("size=4096;stride=1");
    // The harness samples as the agent does on this device (CpuDevice: 5 ms samples, 2 s... its cap).
    assertThat(Files.readString(plan)).startsWith("busload-plan 2 stride cpu\nmethod 10 3 0.005 1048576 10 10 0.005 ");
    io.busload.agent.measure.SamplingMethod sampling = PlanFile.sampling(Files.readString(plan)).orElseThrow();
    assertThat(sampling.rule().maxSamples()).isEqualTo(1000);
  }

  @Test
  void profile_cpuDevice_saysWhyNoCountersAndStillSucceeds(@TempDir Path dir) {
    int exit = run("run", "--suite", "stride", "--device", "cpu", "--option", "elements=4096", "--plan-out",
        dir.resolve("plan.txt").toString(), "--profile");

    assertThat(exit).as(err.toString()).isZero();
    // No ncu on a build host: "ncu not found (looked in ...)"; with one: the CPU is no CUDA device.
    assertThat(out.toString()).containsAnyOf("profile: ncu not found (looked in ", "profile: cpu is not a CUDA device",
        "profile: no native harness");
  }
}
