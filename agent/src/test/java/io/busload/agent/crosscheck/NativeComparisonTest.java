package io.busload.agent.crosscheck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.busload.agent.report.CsvPrinter;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

class NativeComparisonTest {
  private static String agentRow(String kernel, String params, boolean valid, String median, String method) {
    return ",,,2026-11-22T00:00:00Z,cuda:0,NVIDIA H200," + kernel + "," + params + "," + valid + "," + median
        + ",1,1,0.001,20,8,1,8,\"" + method + "\",,\r\n";
  }

  private static final String AGENT = CsvPrinter.HEADER + "\r\n"
      + agentRow("memcpy-d2d", "size=67108864", true, "1.2819E-4", "warm-up 40 launches, then samples; median")
      + agentRow("stride-copy-fp32", "size=67108864;stride=2", true, "1.8893E-4", "ok")
      + agentRow("stride-copy-fp32", "size=67108864;stride=4", true, "3.0819E-4", "ok")
      + agentRow("matmul", "size=8192;variant=1", false, "0.0", "unavailable: no cuBLAS")
      + agentRow("gather-random", "size=67108864", true, "9.0E-4", "ok");

  /** As the harness prints them: params in the plan's axis order, not sorted like the agent's CSV. */
  private static final String NATIVE = """
      kernel,params,median_s,launches_per_sample,samples
      memcpy-d2d,size=67108864,1.2786e-04,8,31
      stride-copy-fp32,stride=2;size=67108864,1.8786e-04,6,31
      stride-copy-fp32,stride=4;size=67108864,2.9000e-04,4,40
      """;

  @Test
  void join_sameKernelAndParams_ratioIsBusloadOverNative() {
    List<NativeComparison.Row> rows = NativeComparison.join(AGENT, NATIVE);

    assertThat(rows).hasSize(5);
    assertThat(rows.get(0).ratio()).isCloseTo(1.2819 / 1.2786, within(1e-9));
    assertThat(rows.get(0).within()).isTrue();
    assertThat(rows.get(1).within()).isTrue();
  }

  @Test
  void join_ratioBeyondOnePercent_notWithin() {
    NativeComparison.Row row = NativeComparison.join(AGENT, NATIVE).get(2);

    assertThat(row.ratio()).isCloseTo(3.0819 / 2.9, within(1e-9));
    assertThat(row.compared()).isTrue();
    assertThat(row.within()).isFalse();
  }

  @Test
  void join_invalidOrMissingNative_notComparedWithTheReason() {
    List<NativeComparison.Row> rows = NativeComparison.join(AGENT, NATIVE);

    assertThat(rows.get(3).compared()).isFalse();
    assertThat(rows.get(3).note()).isEqualTo("not measured by Busload: unavailable: no cuBLAS");
    assertThat(rows.get(4).note()).isEqualTo("no native row");
  }

  @Test
  void print_table_perKernelRatioAndSummary() {
    StringWriter text = new StringWriter();

    NativeComparison.print(NativeComparison.join(AGENT, NATIVE), new PrintWriter(text));

    assertThat(text.toString())
        .contains("| memcpy-d2d | size=67108864 | 128.19 | 127.86 | 1.0026 | yes |")
        .contains("| stride-copy-fp32 | size=67108864;stride=4 | 308.19 | 290.00 | 1.0627 | NO |")
        .contains("2 of 3 compared kernels within 1% (2 rows not compared)");
  }

  /** The H100's drift case: 2664 us after the suite, 2700 us before it; the agent's 2705 is within 1% of the mean. */
  @Test
  void join_twoNativeRuns_meanOfTheRunsAndTheirDrift() {
    String before = "kernel,params,median_s\nmemcpy-d2d,size=67108864,1.2700e-04\n";
    String after = "kernel,params,median_s\nmemcpy-d2d,size=67108864,1.2900e-04\n";

    List<NativeComparison.Row> rows = NativeComparison.join(AGENT, List.of(before, after));

    assertThat(rows.get(0).nativeSeconds()).isCloseTo(1.28e-4, within(1e-12));
    assertThat(rows.get(0).nativeRuns()).containsExactly(1.27e-4, 1.29e-4);
    assertThat(rows.get(0).nativeDrift()).isCloseTo(0.02 / 1.28, within(1e-9));
    assertThat(rows.get(0).ratio()).isCloseTo(1.2819 / 1.28, within(1e-9));
    assertThat(rows.get(1).note()).isEqualTo("no native row");
    StringWriter text = new StringWriter();
    NativeComparison.print(rows, new PrintWriter(text));
    assertThat(text.toString()).contains("| memcpy-d2d | size=67108864 | 128.19 | 128.00 | 127.00 / 129.00 | 1.56% | 1.0015 | yes |");
  }
}
