package io.busload.agent.crosscheck;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.agent.measure.Plan;
import io.busload.kernels.Program;
import io.busload.kernels.SuiteOptions;
import io.busload.protocol.Counters;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.KernelResult;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * From ncu's CSV text (the "details" layout {@link NcuCsvTest} checks, thousands separators and scaled units
 * included) to the {@link Counters} of the results the agent sends. The model's side needs no GPU: the stride
 * suite's programs are resolved for an H200-sized device and the CSV is written from their kernel steps.
 */
class ProfileCountersTest {
  private static final long N = 1 << 20;
  private static final DeviceInfo H200 = new DeviceInfo("host/cuda:0", DeviceInfo.CUDA, "NVIDIA H200", "GPU-0",
      "9.0", 132, 60L << 20, 141L << 30, 3_201_000_000L, 6144, 4.9e12, "580.65");
  private final Plan plan = Plan.resolve("stride", new SuiteOptions(OptionalLong.of(N), Map.of()), PlanFileTest.GPU,
      "cuda:0");

  /**
   * ncu's CSV for one launch of every kernel step of the plan: requests one per warp, sectors as the model says
   * except the stride=1 copy's loads, counted at twice the model; DRAM bytes read 1% over the useful bytes,
   * written in Mbyte with a decimal; and the stride=2 copy's store sectors reported as n/a.
   */
  private String ncuCsv() {
    StringBuilder csv = new StringBuilder("==PROF== Connected to process 4242 (/tmp/crosscheck)\n");
    csv.append("\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\","
        + "\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\","
        + "\"Metric Value\"\n");
    int id = 0;
    for (ModelledLaunch launch : ModelledLaunch.of(plan, N)) {
      Plan.Planned planned = launch.planned();
      Object stride = planned.kernelCase().params().get("stride");
      String k = launch.kernel().entryPoint();
      double requests = launch.requests();
      boolean copy = planned.kernelCase().spec().name().equals("stride-copy-fp32");
      double ldFactor = copy && Long.valueOf(1).equals(stride) ? 2 : 1;
      boolean storesNa = copy && Long.valueOf(2).equals(stride);
      row(csv, id, k, ProfileReport.LD_REQUESTS, "", grouped(requests));
      row(csv, id, k, ProfileReport.LD_SECTORS, "sector", grouped(launch.loadSectors() * ldFactor));
      row(csv, id, k, ProfileReport.ST_REQUESTS, "", grouped(requests));
      row(csv, id, k, ProfileReport.ST_SECTORS, "sector", storesNa ? "n/a" : grouped(launch.storeSectors()));
      row(csv, id, k, ProfileReport.DRAM_READ, "byte",
          grouped(Math.round(launch.program().traffic().bytesRead() * 1.01)));
      row(csv, id, k, ProfileReport.DRAM_WRITE, "Mbyte",
          String.format(Locale.ROOT, "%.6f", launch.program().traffic().bytesWritten() / 1e6));
      id++;
    }
    return csv.append("==PROF== Disconnected from process 4242\n").toString();
  }

  private static void row(StringBuilder csv, int id, String kernel, String metric, String unit, String value) {
    csv.append(String.format(Locale.ROOT, "\"%d\",\"4242\",\"crosscheck\",\"127.0.0.1\",\"%s\",\"1\",\"7\","
        + "\"(256, 1, 1)\",\"(4096, 1, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\",\"%s\",\"%s\",\"%s\"%n",
        id, kernel, metric, unit, value));
  }

  private static String grouped(double value) {
    return String.format(Locale.ROOT, "%,d", Math.round(value));
  }

  /** A result as the agent's measurement makes it: the case's params plus its size, as numbers. */
  private static KernelResult result(Plan.Planned planned) {
    Map<String, Object> params = new LinkedHashMap<>(planned.kernelCase().params());
    params.put("size", planned.size());
    return KernelResult.builder().id(UUID.randomUUID()).runId("run-1").sweepId("sweep-1").agentId("agent")
        .agentVersion("0.1.0").fatbinHash("fatbin").device(H200).suite("stride")
        .kernel(planned.kernelCase().spec().name()).params(params).valid(true).mismatches(List.of())
        .medianSeconds(1e-5).minSeconds(1e-5).maxSeconds(1e-5).relativeSpread(0).samples(List.of(1e-5))
        .launchesPerSample(1).warmupLaunches(1).bytesRead(8 * N).bytesWritten(4 * N).bytes(12 * N).bandwidth(1e12)
        .method("test").measuredAt(Instant.parse("2026-11-22T00:00:00Z")).build();
  }

  private List<KernelResult> attached() {
    ProfileReport.Report report = ProfileReport.build(plan, NcuCsv.parse(ncuCsv()));
    assertThat(report.problems()).isEmpty();
    List<KernelResult> results = new ArrayList<>();
    plan.cases().forEach(p -> results.add(result(p)));
    return ProfileCounters.attach(results, ProfileCounters.byCase(report));
  }

  private static KernelResult find(List<KernelResult> results, String kernel, long stride) {
    return results.stream().filter(r -> r.kernel().equals(kernel)
        && Long.valueOf(stride).equals(((Number) r.params().getOrDefault("stride", -1L)).longValue()))
        .findFirst().orElseThrow();
  }

  private Program program(String kernel, long stride) {
    return plan.cases().stream().filter(p -> p.kernelCase().spec().name().equals(kernel)
        && Long.valueOf(stride).equals(p.kernelCase().params().get("stride"))).findFirst().orElseThrow().program();
  }

  @Test
  void attach_loadsCountedTwiceTheModel_measuredBesideModelAndFlagged() {
    KernelResult r = find(attached(), "stride-copy-fp32", 1);
    Program program = program("stride-copy-fp32", 1);

    Counters c = r.counters();
    assertThat(c).isNotNull();
    assertThat(c.loadSectorsPerRequest()).isEqualTo(8.0);
    assertThat(c.modelLoadSectorsPerRequest()).isEqualTo(4.0);
    assertThat(c.storeSectorsPerRequest()).isEqualTo(4.0);
    assertThat(c.modelStoreSectorsPerRequest()).isEqualTo(4.0);
    assertThat(c.dramBytesRead()).isEqualTo((double) Math.round(program.traffic().bytesRead() * 1.01));
    assertThat(c.modelDramBytesRead()).as("coalesced fp32: the sectors hold exactly the useful bytes")
        .isEqualTo((double) program.traffic().bytesRead());
    assertThat(c.dramBytesWritten()).isCloseTo(program.traffic().bytesWritten(),
        org.assertj.core.api.Assertions.within(1.0));
    assertThat(c.flagged()).isTrue();
    assertThat(c.flags()).singleElement().asString()
        .isEqualTo("loads: 8.00 sectors/request measured, 4.00 modelled");
    assertThat(c.kernels()).containsExactly("busload_stride_copy_f32");
    assertThat(c.method()).startsWith("Nsight Compute");
  }

  @Test
  void attach_countersAsModelled_notFlagged() {
    Counters c = find(attached(), "stride-copy-fp32", 32).counters();

    assertThat(c.flagged()).isFalse();
    assertThat(c.flags()).isEmpty();
    assertThat(c.loadSectorsPerRequest()).isEqualTo(c.modelLoadSectorsPerRequest()).isEqualTo(32.0);
    assertThat(c.modelDramBytesRead()).as("one useful fp32 per 32-byte sector")
        .isEqualTo(8.0 * program("stride-copy-fp32", 32).traffic().bytesRead());
  }

  @Test
  void attach_naInTheCsv_noneNotZero() {
    Counters c = find(attached(), "stride-copy-fp32", 2).counters();

    assertThat(c.storeSectorsPerRequest()).as("ncu said n/a").isNull();
    assertThat(c.modelStoreSectorsPerRequest()).isEqualTo(4.0);
    assertThat(c.flags()).singleElement().asString().startsWith("stores: the model has accesses, ncu counted no");
  }

  @Test
  void attach_caseWithoutKernelSteps_noCounters() {
    List<KernelResult> results = attached();

    assertThat(results).filteredOn(r -> r.kernel().equals("memcpy-d2d")).isNotEmpty()
        .allSatisfy(r -> assertThat(r.counters()).isNull());
    assertThat(results).filteredOn(r -> r.kernel().equals("stride-copy-fp32")).isNotEmpty()
        .allSatisfy(r -> assertThat(r.counters()).isNotNull());
  }

  @Test
  void key_planParamsInAxisOrderAndResultParamsSorted_same() {
    assertThat(ProfileCounters.key("k", ProfileCounters.parse("stride=4;size=1048576")))
        .isEqualTo(ProfileCounters.key("k", Map.of("size", 1048576L, "stride", 4L)));
    assertThat(ProfileCounters.key("k", ProfileCounters.parse("stride=4;size=1048576")))
        .isNotEqualTo(ProfileCounters.key("k", Map.of("size", 1048576L, "stride", 5L)));
  }
}
