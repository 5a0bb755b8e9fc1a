package io.busload.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.agent.report.CsvPrinter;
import io.busload.agent.report.JsonPrinter;
import io.busload.agent.report.ResultPrinter;
import io.busload.agent.report.TablePrinter;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Printers against golden files in src/test/resources/golden. To accept a deliberate change, run with
 * {@code -Dbusload.updateGolden=true} and review the diff.
 */
class PrinterGoldenTest {

  private static String print(ResultPrinter printer) {
    StringWriter text = new StringWriter();
    printer.print(Fixtures.results(), new PrintWriter(text));
    return text.toString();
  }

  private static void assertGolden(String name, String actual) throws IOException {
    if (Boolean.getBoolean("busload.updateGolden")) {
      Files.writeString(Path.of("src/test/resources/golden", name), actual);
    }
    try (InputStream in = PrinterGoldenTest.class.getResourceAsStream("/golden/" + name)) {
      assertThat(in).as("golden file %s", name).isNotNull();
      assertThat(actual).isEqualTo(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  @Test
  void csv_threeResults_matchesGolden() throws IOException {
    assertGolden("results.csv", print(new CsvPrinter()));
  }

  @Test
  void json_threeResults_matchesGolden() throws IOException {
    assertGolden("results.json", print(new JsonPrinter()));
  }

  @Test
  void csv_validRows_carryBothFractions() {
    String[] lines = print(new CsvPrinter()).split("\r\n");
    // The rest of the record follows the fractions (schemaVersion first); the fractions stay put.
    assertThat(lines[0]).contains(",method,fractionOfCeiling,fractionOfPeak,schemaVersion,");
    assertThat(lines[1]).containsPattern(",1\\.0,0\\.7850\\d*,1,stride,");
    assertThat(lines[3]).contains("a device call failed,,,1,stride,"); // invalid: no fractions
    // busload compare judges CSV files on this column: every sample, in measuring order.
    assertThat(lines[0]).contains(",sampleSeconds,");
    assertThat(lines[1]).contains(",5.0E-5;5.1E-5;5.2E-5,");
  }

  @Test
  void csv_invalidRow_emptyBandwidthAndQuotedMethod() {
    String[] lines = print(new CsvPrinter()).split("\r\n");
    assertThat(lines[0]).isEqualTo(CsvPrinter.HEADER);
    assertThat(lines[1]).contains(",\"warm-up 42 launches; 3 samples of 20 launches between one CUDA event pair; median, \"\"quoted\"\"\"");
    assertThat(lines[3]).contains("stride-copy-fp32,size=16777216;stride=2,false,").contains(",134217728,,");
  }

  @Test
  void table_ceilingInSameRun_showsFractionAndMethod() {
    String table = print(new TablePrinter());
    assertThat(table).contains("NVIDIA H100 80GB HBM3").contains("theoretical peak: 3352.3 GB/s");
    // stride 1: 134217728 B / 62 us = 2164.8 GB/s; memcpy: / 51 us = 2631.7 GB/s -> 82.3%
    // of peak: 2164.8 / 3352.3 = 64.6%; 2631.7 / 3352.3 = 78.5%
    assertThat(table).containsPattern("stride-copy-fp32 +size=16777216;stride=1 +yes +62.00 +2164.8 +82.3% +64.6%");
    assertThat(table).containsPattern("memcpy-d2d +size=16777216 +yes +51.00 +2631.7 +100.0% +78.5%");
    assertThat(table).contains("NO").contains("    out[7]: expected 1.5, got 0.25");
    assertThat(table).contains("method:").contains("between one CUDA event pair");
  }

  @Test
  void table_energyReadAndNot_perGigabyteAndPerWattOrNotReadNeverZero() {
    String table = print(new TablePrinter());
    // memcpy: 33.18 J over 2000 launches of 134,217,728 B (268.4 GB) = 0.124 J/GB; 2631.7 GB/s / 316.2 W = 8.32.
    assertThat(table).containsPattern("memcpy-d2d +size=16777216 +yes .* 0\\.124 +8\\.32\n");
    // stride 1 has no energy: "not read" in both columns, never a 0.
    assertThat(table).containsPattern("stride-copy-fp32 +size=16777216;stride=1 +yes .* not read +not read\\n");
  }

  @Test
  void csv_energyReadAndNot_typedCellsOrNotReadWithEmptyFigures() {
    String[] lines = print(new CsvPrinter()).split("\r\n");
    assertThat(lines[0]).endsWith(",energy,energyJoules,energyAverageWatts,energyIdleWatts,energyWindowSeconds,"
        + "energyLaunches,energyCounterSteps,joulesPerGigabyte,gigabytesPerSecondPerWatt,health,healthAtRunStart,"
        + "healthAfterCase,xidEvents,healthNote");
    assertThat(lines[1]).containsPattern(",read,33\\.18,316\\.2,76\\.2,1\\.049,2000,10,0\\.1236\\d*,8\\.322\\d*,"
        + "not read,,,,$");
    assertThat(lines[2]).endsWith(",not read,,,,,,,,,not read,,,,");
  }

  @Test
  void ceilings_readHeavyKernelFasterThanMemcpy_setsTheMeasuredCeilingAndEveryFractionStaysAtMostOne() {
    // As gather-sorted on an H100 (102.2% of memcpy): the same bytes in 49 us instead of memcpy's 51 us.
    java.util.List<io.busload.protocol.KernelResult> results = new java.util.ArrayList<>(Fixtures.results());
    results.add(Fixtures.result("00000000-0000-0000-0000-000000000004", "gather-sorted",
        java.util.Map.of("size", 16777216L), true, java.util.List.of(), java.util.List.of(4.8e-5, 4.9e-5, 5.0e-5)));

    io.busload.agent.report.Ceilings ceilings = io.busload.agent.report.Ceilings.of(results);

    assertThat(ceilings.measured()).hasValueSatisfying(c -> assertThat(c).isCloseTo(134217728 / 4.9e-5,
        org.assertj.core.data.Offset.offset(1.0)));
    assertThat(ceilings.measuredBy()).contains("gather-sorted size=16777216");
    assertThat(results).allSatisfy(r -> ceilings.ofMeasured(r).ifPresent(f -> assertThat(f).isLessThanOrEqualTo(1.0)));
    StringWriter text = new StringWriter();
    new TablePrinter().print(results, new PrintWriter(text));
    assertThat(text.toString()).contains("measured ceiling: 2739.1 GB/s (gather-sorted size=16777216)")
        .containsPattern("memcpy-d2d +size=16777216 +yes +51.00 +2631.7 +96.1% ");
  }
}
