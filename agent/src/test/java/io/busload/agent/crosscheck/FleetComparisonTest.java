package io.busload.agent.crosscheck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.busload.agent.report.CsvPrinter;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class FleetComparisonTest {
  private static String row(String id, String kernel, String params, boolean valid, String median) {
    return id + ",s,r,2026-11-24T00:00:00Z,gpu/cuda:0,NVIDIA H100," + kernel + "," + params + "," + valid + ","
        + median + ",1,1,0.001,20,8,1,8,\"ok\",,\r\n";
  }

  private static final String STANDALONE = CsvPrinter.HEADER + "\r\n"
      + row("a1", "memcpy-d2d", "size=64", true, "1.000E-4")
      + row("a2", "stride-copy-fp32", "size=64;stride=2", true, "2.000E-4")
      + row("a3", "matmul-cublas", "size=8", false, "0.0");

  /** Compares {@link #STANDALONE} with a fleet export of {@code rows}. */
  private static FleetComparison.Report compareWithFleet(String... rows) {
    return FleetComparison.compare(STANDALONE, CsvPrinter.HEADER + "\r\n" + String.join("", rows));
  }

  @Test
  void compare_sameCasesWithinOnePercent_ok() {
    FleetComparison.Report report = compareWithFleet(
        row("f1", "stride-copy-fp32", "stride=2;size=64", true, "2.019E-4"),
        row("f2", "memcpy-d2d", "size=64", true, "0.995E-4"),
        row("f3", "matmul-cublas", "size=8", false, "0.0"));

    assertThat(report.ok()).isTrue();
    assertThat(report.rows()).extracting(FleetComparison.Row::kernel)
        .containsExactly("memcpy-d2d", "stride-copy-fp32", "matmul-cublas");
    assertThat(report.rows().get(1).ratio()).isCloseTo(1.0095, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(report.rows().get(2).compared()).isFalse();
    StringWriter text = new StringWriter();
    FleetComparison.print(report, new PrintWriter(text));
    assertThat(text.toString()).contains("2 of 2 compared kernels within 1% (largest difference 0.95%); "
        + "3 standalone cases, 3 fleet results, 0 lost, 0 duplicated");
  }

  @Test
  void compare_medianOffByMoreThanOnePercent_fails() {
    FleetComparison.Report report = compareWithFleet(
        row("f1", "memcpy-d2d", "size=64", true, "1.000E-4"),
        row("f2", "stride-copy-fp32", "size=64;stride=2", true, "2.021E-4"),
        row("f3", "matmul-cublas", "size=8", false, "0.0"));

    assertThat(report.ok()).isFalse();
    assertThat(report.rows().get(1).within()).isFalse();
  }

  @Test
  void compare_missingCaseAndRepeatedId_areLostAndDuplicated() {
    FleetComparison.Report report = compareWithFleet(
        row("f1", "memcpy-d2d", "size=64", true, "1.000E-4"),
        row("f1", "matmul-cublas", "size=8", false, "0.0"),
        row("f4", "memcpy-d2d", "size=64", true, "1.000E-4"));

    assertThat(report.ok()).isFalse();
    assertThat(report.lost()).containsExactly("stride-copy-fp32 size=64;stride=2");
    assertThat(report.duplicated()).containsExactly("id f1", "memcpy-d2d size=64");
  }

  @Test
  void compare_looserTolerance_holdsWhatOnePercentRefusesAndSaysWhichTolerance() {
    String fleet = CsvPrinter.HEADER + "\r\n" + row("f1", "memcpy-d2d", "size=64", true, "1.040E-4")
        + row("f2", "stride-copy-fp32", "size=64;stride=2", true, "1.930E-4")
        + row("f3", "matmul-cublas", "size=8", false, "0.0");

    FleetComparison.Report strict = FleetComparison.compare(STANDALONE, fleet);
    FleetComparison.Report loose = FleetComparison.compare(STANDALONE, fleet, 0.05);

    assertThat(strict.ok()).isFalse();
    assertThat(loose.ok()).isTrue();
    StringWriter text = new StringWriter();
    FleetComparison.print(loose, new PrintWriter(text));
    assertThat(text.toString()).startsWith("| kernel | params | standalone us | fleet us | fleet / standalone |"
        + " within 5% |").contains("2 of 2 compared kernels within 5% (largest difference 4.00%)");
    assertThatThrownBy(() -> FleetComparison.compare(STANDALONE, fleet, -0.01))
        .hasMessageContaining("tolerance: a fraction of at least 0");
  }

  @Test
  void compare_emptyFleetExport_namesIt() {
    assertThatThrownBy(() -> FleetComparison.compare(STANDALONE, ""))
        .hasMessageContaining("fleet CSV has no results");
  }
}
