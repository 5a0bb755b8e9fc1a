package io.busload.agent.crosscheck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.busload.agent.measure.Plan;
import io.busload.agent.measure.SamplingMethod;
import io.busload.agent.measure.StoppingRule;
import io.busload.kernels.Arg;
import io.busload.kernels.Buffer;
import io.busload.kernels.DeviceLimits;
import io.busload.kernels.Step;
import io.busload.kernels.SuiteOptions;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class PlanFileTest {
  /** An H200-like device: every default size fits. */
  static final DeviceLimits GPU = new DeviceLimits(DeviceLimits.CUDA, 140L << 30, 130L << 30, 60L << 20, 132);

  @Test
  void writeThenParse_coalescingSuiteOnGpu_everyCaseBufferAndStepComesBack() {
    Plan plan = Plan.resolve("coalescing", SuiteOptions.DEFAULTS, GPU, "cuda:0");

    List<PlanFile.Case> parsed = PlanFile.parse(PlanFile.write(plan, "cuda:0"));

    assertThat(parsed).hasSameSizeAs(plan.cases());
    for (int i = 0; i < parsed.size(); i++) {
      Plan.Planned planned = plan.cases().get(i);
      PlanFile.Case c = parsed.get(i);
      assertThat(c.kernel()).isEqualTo(planned.kernelCase().spec().name());
      assertThat(c.params()).isEqualTo(PlanFile.params(planned)).contains("size=" + planned.size());
      if (planned.program() == null) {
        assertThat(c.runs()).isFalse();
        assertThat(c.skipReason()).isEqualTo(planned.skipReason());
        continue;
      }
      assertThat(c.runs()).isTrue();
      assertThat(c.buffers()).as(c.kernel()).isEqualTo(planned.program().buffers());
      assertThat(c.steps()).as(c.kernel()).isEqualTo(planned.program().steps());
    }
    // Every kind of step and a float argument are in the coalescing suite, and came back exactly.
    List<Step> steps = parsed.stream().flatMap(c -> c.steps().stream()).toList();
    assertThat(steps).anyMatch(s -> s instanceof Step.Kernel).anyMatch(s -> s instanceof Step.DeviceCopy)
        .anyMatch(s -> s instanceof Step.Sgemm);
    assertThat(steps).anyMatch(s -> s instanceof Step.Kernel k && k.args().stream().anyMatch(a -> a instanceof Arg.F32));
  }

  /** Buffers in host and peer memory, copies by engine and two at once come back exactly. */
  @Test
  void writeThenParse_interconnectOnTwoGpus_memoriesLinksAndConcurrentStepsComeBack() {
    DeviceLimits pair = new DeviceLimits(DeviceLimits.CUDA, 140L << 30, 130L << 30, 60L << 20, 132, 0, 2);
    Plan plan = Plan.resolve("interconnect", SuiteOptions.parse(Map.of("bytes", "4096")), pair, "cuda:0");

    String text = PlanFile.write(plan, "cuda:0");
    List<PlanFile.Case> parsed = PlanFile.parse(text);

    assertThat(parsed).hasSameSizeAs(plan.cases()).allMatch(PlanFile.Case::runs);
    for (int i = 0; i < parsed.size(); i++) {
      assertThat(parsed.get(i).buffers()).isEqualTo(plan.cases().get(i).program().buffers());
      assertThat(parsed.get(i).steps()).isEqualTo(plan.cases().get(i).program().steps());
    }
    assertThat(parsed).extracting(PlanFile.Case::params).contains("bytes=4096;peer=1;size=4096");
    assertThat(text).contains("buffer 0 src fp32 1024 4096 input random pinned\n", "link 1 0 4096\n",
        "concurrent 2\nlink 1 0 4096\nlink 3 2 4096\n", "buffer 1 dst fp32 1024 4096 output poison peer\n");
    // Device memory keeps the 8-token buffer line older harnesses read.
    assertThat(text.lines().filter(l -> l.startsWith("buffer ") && l.split(" ").length == 8)).isNotEmpty();
    assertThat(text).doesNotContain(" device\n");
  }

  @Test
  void write_gatherSuite_indexBuffersSayIotaOrPermutationAndOutputsPoison() {
    Plan plan = Plan.resolve("gather", new SuiteOptions(OptionalLong.of(4096), Map.of()), GPU, "cuda:0");

    List<PlanFile.Case> parsed = PlanFile.parse(PlanFile.write(plan, "cuda:0"));

    assertThat(parsed).filteredOn(c -> c.kernel().endsWith("-sorted")).allSatisfy(c ->
        assertThat(c.fills()).containsExactly("random", "iota", "poison"));
    assertThat(parsed).filteredOn(c -> c.kernel().endsWith("-random")).isNotEmpty().allSatisfy(c ->
        assertThat(c.fills()).containsExactly("random", "permutation", "poison"));
    assertThat(parsed).filteredOn(c -> c.kernel().equals("gather-random")).singleElement().satisfies(c -> {
      assertThat(c.buffers()).extracting(Buffer::name).containsExactly("in", "idx", "out");
      assertThat(c.entryPoints()).containsExactly("busload_gather_gather_f32");
    });
  }

  @Test
  void write_stepAndArgumentLines_haveTheDocumentedLayout() {
    String line = PlanFile.step(new Step.Kernel("busload_x", io.busload.kernels.Dim3.of(3, 2), io.busload.kernels.Dim3.of(256),
        64, List.of(Arg.buf(1), Arg.i32(-7), Arg.i64(1L << 40), new Arg.F32(1.5f), new Arg.F64(0.25))));

    assertThat(line).isEqualTo("kernel busload_x 3 2 1 256 1 1 64 5 buf:1 i32:-7 i64:1099511627776 f32:0x3fc00000 "
        + "f64:0x3fd0000000000000");
    assertThat(PlanFile.step(new Step.Memset32(2, 0, 10))).isEqualTo("memset32 2 0 10");
    assertThat(PlanFile.step(new Step.DeviceCopy(1, 0, 4096))).isEqualTo("copy 1 0 4096");
    assertThat(PlanFile.step(new Step.Sgemm(4, 5, 6, 0, 1, 2))).isEqualTo("sgemm 4 5 6 0 1 2");
  }

  @Test
  void parse_unknownRecord_failsNamingTheLine() {
    assertThatThrownBy(() -> PlanFile.parse("busload-plan 2 s cuda:0\ncase k size=1\nlaunch x\n"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("line 3").hasMessageContaining("launch");
  }

  @Test
  void sampling_writtenWithThePlan_readBackExactly() {
    Plan plan = Plan.resolve("stride", new SuiteOptions(OptionalLong.of(4096), Map.of()), GPU, "cuda:0");
    SamplingMethod sampling = new SamplingMethod(10, 3, 5e-3, 1 << 20, new StoppingRule(10, 10, 0.005, 2.0, 1000));

    String text = PlanFile.write(plan, "cuda:0", sampling);

    assertThat(text.lines().skip(1).findFirst()).contains("method 10 3 0.005 1048576 10 10 0.005 2.0 1000");
    assertThat(PlanFile.sampling(text)).contains(sampling);
    assertThat(PlanFile.parse(text)).hasSameSizeAs(plan.cases());
    assertThat(PlanFile.sampling(PlanFile.write(plan, "cuda:0"))).isEmpty();
  }

  @Test
  void parse_caseWithoutEnd_fails() {
    assertThatThrownBy(() -> PlanFile.parse("busload-plan 2 s cuda:0\ncase k size=1\ncopy 1 0 4\n"))
        .hasMessageContaining("has no end");
  }
}
