package io.busload.agent.crosscheck;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.agent.measure.Plan;
import io.busload.kernels.Program;
import io.busload.kernels.Step;
import io.busload.kernels.SuiteOptions;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProfileReportTest {
  private static final long N = 1 << 20;
  private final Plan plan = Plan.resolve("stride", new SuiteOptions(OptionalLong.of(N), Map.of()), PlanFileTest.GPU,
      "cuda:0");

  /** Counters exactly as the model predicts, one launch per kernel step; {@code loadFactor} scales load sectors. */
  private List<NcuCsv.Launch> asModelled(double loadFactor, String strideParam) {
    List<NcuCsv.Launch> launches = new ArrayList<>();
    for (ModelledLaunch launch : ModelledLaunch.of(plan, N)) {
      boolean scaled = launch.planned().kernelCase().params().toString().contains(strideParam);
      Map<String, Double> m = new LinkedHashMap<>();
      m.put(ProfileReport.LD_REQUESTS, launch.requests());
      m.put(ProfileReport.LD_SECTORS, launch.loadSectors() * (scaled ? loadFactor : 1));
      m.put(ProfileReport.ST_REQUESTS, launch.requests());
      m.put(ProfileReport.ST_SECTORS, launch.storeSectors());
      m.put(ProfileReport.DRAM_READ, (double) launch.program().traffic().bytesRead());
      m.put(ProfileReport.DRAM_WRITE, (double) launch.program().traffic().bytesWritten());
      launches.add(new NcuCsv.Launch(launches.size(), launch.kernel().entryPoint(), m));
    }
    return launches;
  }

  @Test
  void build_countersAsModelled_everyKernelCaseNoFlag() {
    ProfileReport.Report report = ProfileReport.build(plan, asModelled(1, "-"));

    assertThat(report.problems()).isEmpty();
    assertThat(report.rows()).hasSize((int) plan.cases().stream().filter(p -> p.program() != null
        && !p.program().steps().stream().allMatch(s -> s instanceof Step.DeviceCopy)).count());
    assertThat(report.rows()).isNotEmpty().noneMatch(ProfileReport.Row::flagged);
    assertThat(report.rows()).extracting(ProfileReport.Row::kernel).doesNotContain("memcpy-d2d");
  }

  @Test
  void build_loadSectorsTwiceTheModel_thatCaseFlaggedOnLoads() {
    ProfileReport.Report report = ProfileReport.build(plan, asModelled(2, "stride=1}"));

    List<ProfileReport.Row> flagged = report.rows().stream().filter(ProfileReport.Row::flagged).toList();
    assertThat(flagged).singleElement().satisfies(r -> {
      assertThat(r.params()).isEqualTo("size=" + N + ";stride=1");
      assertThat(r.flags()).singleElement().asString().startsWith("loads: 8.00 sectors/request measured, 4.00 modelled");
    });
  }

  @Test
  void build_sectorsWithinTenPercent_notFlagged() {
    ProfileReport.Report report = ProfileReport.build(plan, asModelled(1.09, "stride=1}"));

    assertThat(report.rows()).noneMatch(ProfileReport.Row::flagged);
  }

  @Test
  void build_dramAboveTheModelledSectors_flaggedOnDram() {
    Program program = plan.cases().stream().filter(p -> p.kernelCase().params().getOrDefault("stride", 0L) == 32)
        .findFirst().orElseThrow().program();
    Map<String, Double> m = new LinkedHashMap<>();
    m.put(ProfileReport.LD_REQUESTS, 100.0);
    m.put(ProfileReport.LD_SECTORS, 3200.0);
    m.put(ProfileReport.ST_REQUESTS, 100.0);
    m.put(ProfileReport.ST_SECTORS, 400.0);
    m.put(ProfileReport.DRAM_READ, 16.0 * program.traffic().bytesRead()); // 64-byte DRAM granules: 2x the sectors
    m.put(ProfileReport.DRAM_WRITE, (double) program.traffic().bytesWritten());

    ProfileReport.Row row = ProfileReport.row("stride-copy-fp32", "stride=32", program,
        List.of(new NcuCsv.Launch(0, "busload_stride_copy_f32", m)));

    assertThat(row.loads().modelSectorBytes()).isEqualTo(8.0 * program.traffic().bytesRead());
    assertThat(row.flags()).singleElement().asString().startsWith("loads: DRAM").contains("above");
  }

  /**
   * The H200's counters of reduction-sequential at 2^27 (docs/results/2026-11-22-h200-coalescing): 4.11 MB written
   * against 2 MiB of partial sums. Without the partials in the model, 32 bytes were expected and it was flagged.
   */
  @Test
  void build_reductionPartialSums_countedInTheStoreModel() {
    Program program = new io.busload.kernels.families.Reduction.Case(
        io.busload.kernels.families.Reduction.Variant.SEQUENTIAL, 1L << 27);
    long partials = (1L << 27) / io.busload.kernels.families.Reduction.BLOCK * Float.BYTES;
    assertThat(program.overhead().bytesWritten()).isEqualTo(partials);
    Map<String, Double> first = new LinkedHashMap<>();
    first.put(ProfileReport.LD_REQUESTS, (1 << 27) / 32.0);
    first.put(ProfileReport.LD_SECTORS, 4.0 * (1 << 27) / 32.0);
    first.put(ProfileReport.ST_REQUESTS, (double) (1 << 19));
    first.put(ProfileReport.ST_SECTORS, (double) (1 << 19));
    first.put(ProfileReport.DRAM_READ, 536.9e6);
    first.put(ProfileReport.DRAM_WRITE, 4.11e6);
    Map<String, Double> last = new LinkedHashMap<>();
    last.put(ProfileReport.LD_REQUESTS, (1 << 19) / 32.0);
    last.put(ProfileReport.LD_SECTORS, 4.0 * (1 << 19) / 32.0);
    last.put(ProfileReport.ST_REQUESTS, 1.0);
    last.put(ProfileReport.ST_SECTORS, 1.0);
    last.put(ProfileReport.DRAM_READ, 2.1e6);
    last.put(ProfileReport.DRAM_WRITE, 0.0);

    ProfileReport.Row row = ProfileReport.row("reduction-sequential", "size=134217728", program, List.of(
        new NcuCsv.Launch(0, "busload_reduction_sequential", first),
        new NcuCsv.Launch(1, "busload_reduction_final", last)));

    assertThat(row.stores().usefulBytes()).isEqualTo(Float.BYTES + partials);
    assertThat(row.stores().modelSectorBytes()).isEqualTo(8.0 * (Float.BYTES + partials));
    assertThat(row.flags()).isEmpty();
  }

  @Test
  void build_wrongKernelName_reportsTheMismatchInsteadOfGuessing() {
    List<NcuCsv.Launch> launches = new ArrayList<>(asModelled(1, "-"));
    NcuCsv.Launch first = launches.getFirst();
    launches.set(0, new NcuCsv.Launch(0, "busload_other", first.metrics()));

    ProfileReport.Report report = ProfileReport.build(plan, launches);

    assertThat(report.rows()).isEmpty();
    assertThat(report.problems()).singleElement().asString().contains("ncu launch 0 is busload_other");
  }

  @Test
  void sameKernel_longerEntryPointWithTheSamePrefix_notTheSame() {
    assertThat(ProfileReport.sameKernel("busload_typed_copy_f32x2", "busload_typed_copy_f32")).isFalse();
    assertThat(ProfileReport.sameKernel("busload_typed_copy_f32", "busload_typed_copy_f32")).isTrue();
    assertThat(ProfileReport.sameKernel("busload_k(float *, long long)", "busload_k")).isTrue();
  }

  @Test
  void print_flaggedRow_saysFlag() {
    StringWriter text = new StringWriter();

    ProfileReport.print(ProfileReport.build(plan, asModelled(2, "stride=1}")), new PrintWriter(text));

    assertThat(text.toString()).contains("| ld sectors/req | model |").contains("FLAG loads: 8.00")
        .contains("1 of ");
  }

  @Test
  void find_noNcuAnywhere_emptyAfterLookingInEveryPlace(@TempDir Path dir) throws Exception {
    Path bin = Files.createDirectories(dir.resolve("bin"));
    List<Path> places = Profiler.ncuCandidates(bin.toString(), dir.resolve("cuda/bin/ncu"), dir.resolve("nsight"));

    assertThat(Profiler.find(places)).isEmpty();
    assertThat(places).containsExactly(bin.resolve("ncu"), dir.resolve("cuda/bin/ncu"),
        dir.resolve("nsight").resolve("*").resolve("ncu"));
  }

  @Test
  void find_ncuInNsightVersionFolder_found(@TempDir Path dir) throws Exception {
    Path ncu = Files.createDirectories(dir.resolve("nsight/2025.3.1")).resolve("ncu");
    Files.writeString(ncu, "#!/bin/sh\n");
    ncu.toFile().setExecutable(true);

    assertThat(Profiler.find(Profiler.ncuCandidates("", dir.resolve("none"), dir.resolve("nsight")))).contains(ncu);
  }

  @Test
  void command_ncuFlags_metricsClockControlAndKernelFilter() {
    List<String> command = Profiler.command(Path.of("ncu"), Path.of("log.csv"), Path.of("h"), Path.of("f"),
        Path.of("p"));

    assertThat(String.join(" ", command)).startsWith("ncu --csv --print-units base --clock-control none "
        + "--kernel-name regex:^busload_ --metrics l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,"
        + "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,"
        + "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,dram__bytes_read.sum,dram__bytes_write.sum")
        .endsWith("--log-file log.csv h f p --once");
  }
}
