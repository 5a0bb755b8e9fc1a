package io.busload.agent.verdicts;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.busload.agent.Main;
import io.busload.agent.report.CsvPrinter;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code busload compare} in-process on real result files: the stride suite measured on the CPU by {@code run}, once,
 * and copies of that file with one kernel's samples made slower by a known factor.
 */
class CompareCliTest {
  @TempDir
  static Path dir;
  static Path json;
  static Path csv;
  static Path slowerJson;
  static Path slowerCsv;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private static String cli(StringWriter out, StringWriter err, int[] exit, String... args) {
    CommandLine cli = Main.commandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    exit[0] = cli.execute(args);
    return out.toString();
  }

  private int run(String... args) {
    int[] exit = new int[1];
    cli(out, err, exit, args);
    return exit[0];
  }

  @BeforeAll
  static void measure() throws Exception {
    StringWriter measured = new StringWriter();
    StringWriter log = new StringWriter();
    int[] exit = new int[1];
    // Enough elements that each sample is long enough for the CPU's clock, and so at least 5 samples per kernel.
    cli(measured, log, exit, "run", "--suite", "stride", "--device", "cpu", "--format", "json", "--option",
        "elements=65536");
    assertThat(exit[0]).as(log.toString()).isZero();
    json = Files.writeString(dir.resolve("baseline.json"), measured.toString());
    List<KernelResult> results = Arrays.asList(JsonCodec.MAPPER.readValue(measured.toString(), KernelResult[].class));
    assertThat(results).allSatisfy(r -> assertThat(r.samples()).hasSizeGreaterThanOrEqualTo(5));
    csv = dir.resolve("baseline.csv");
    Files.writeString(csv, print(results, new CsvPrinter()));
    // The stride=4 case 12% slower: every sample's time x 1.12, so its bandwidth drops by 1 - 1/1.12 = 10.7%.
    ArrayNode tree = (ArrayNode) JsonCodec.MAPPER.readTree(measured.toString());
    for (JsonNode node : tree) {
      if (node.get("kernel").asText().equals("stride-copy-fp32") && node.get("params").get("stride").asInt() == 4) {
        ArrayNode samples = (ArrayNode) node.get("samples");
        for (int i = 0; i < samples.size(); i++) {
          samples.set(i, samples.get(i).asDouble() * 1.12);
        }
        ((ObjectNode) node).put("medianSeconds", node.get("medianSeconds").asDouble() * 1.12);
      }
    }
    List<KernelResult> slower = Arrays.asList(JsonCodec.MAPPER.treeToValue(tree, KernelResult[].class));
    slowerJson = Files.writeString(dir.resolve("slower.json"), JsonCodec.MAPPER.writeValueAsString(slower));
    slowerCsv = dir.resolve("slower.csv");
    Files.writeString(slowerCsv, print(slower, new CsvPrinter()));
  }

  private static String print(List<KernelResult> results, io.busload.agent.report.ResultPrinter printer) {
    StringWriter text = new StringWriter();
    printer.print(results, new PrintWriter(text));
    return text.toString();
  }

  @Test
  void compare_sameJsonFile_exit0EverythingSame() {
    assertThat(run("compare", json.toString(), json.toString())).as(err.toString()).isZero();
    // Identical samples: a shift of exactly 0; a case whose interval is wider than the threshold (the CPU is noisy)
    // is UNCLEAR, never SLOWER or FASTER.
    assertThat(out.toString()).startsWith("### Busload compare: no kernel slower")
        .contains("| kernel | params | baseline | candidate | shift (interval) | verdict | notes |")
        .contains("0 FASTER, 0 SLOWER");
    // How many cases are SAME rather than UNCLEAR depends on how noisy the CPU was while measuring: not asserted.
    assertThat(out.toString().lines().filter(l -> l.startsWith("| stride-copy") || l.startsWith("| memcpy")))
        .hasSize(9).allSatisfy(l -> assertThat(l).containsPattern("\\| \\+0\\.00% \\(-[0-9.]+% to \\+[0-9.]+%\\) \\| "
            + "(SAME|UNCLEAR) \\|"));
  }

  @Test
  void compare_oneKernelSlowerJson_exit1NamingIt() {
    assertThat(run("compare", json.toString(), slowerJson.toString())).as(err.toString()).isEqualTo(1);
    String row = Arrays.stream(out.toString().split("\n")).filter(l -> l.contains("size=65536;stride=4 |"))
        .findFirst().orElseThrow();
    assertThat(row).contains("| **SLOWER** |");
    // The shift is estimated from noisy CPU samples (Hodges-Lehmann): its interval holds the planted -10.7%, up to
    // the table's rounding to two digits (half a percent at most).
    Matcher shift = Pattern.compile("\\| (-[0-9.]+)% \\((-[0-9.]+)% to (-[0-9.]+)%\\) \\|").matcher(row);
    assertThat(shift.find()).as(row).isTrue();
    assertThat(Double.parseDouble(shift.group(2)) - 0.5).as(row).isLessThanOrEqualTo(-10.7);
    assertThat(Double.parseDouble(shift.group(3)) + 0.5).as(row).isGreaterThanOrEqualTo(-10.7);
    assertThat(out.toString()).startsWith("### Busload compare: SLOWER").contains("0 FASTER, 1 SLOWER");
  }

  @Test
  void compare_oneKernelSlowerCsv_judgedOnTheRawSamplesToo() {
    assertThat(run("compare", csv.toString(), slowerCsv.toString())).as(err.toString()).isEqualTo(1);
    assertThat(out.toString()).contains("0 FASTER, 1 SLOWER").containsPattern("stride=4 \\|.*\\| \\*\\*SLOWER\\*\\* \\|");
  }

  @Test
  void compare_csvAgainstJsonOfTheSameRun_same() {
    assertThat(run("compare", csv.toString(), json.toString())).as(err.toString()).isZero();
    assertThat(out.toString()).contains("0 FASTER, 0 SLOWER");
    assertThat(out.toString().lines().filter(l -> l.startsWith("| stride-copy") || l.startsWith("| memcpy")))
        .hasSize(9).allSatisfy(l -> assertThat(l).contains("| +0.00% ("));
  }

  @Test
  void compare_thresholdAboveTheShift_exit0() {
    assertThat(run("compare", "--threshold", "20%", json.toString(), slowerJson.toString())).as(err.toString())
        .isZero();
    assertThat(out.toString()).contains("0 SLOWER").contains("a shift counts from ±20%");
  }

  @Test
  void compare_tablePrintout_exit2NamingLine1() throws Exception {
    StringWriter table = new StringWriter();
    int[] exit = new int[1];
    cli(table, new StringWriter(), exit, "run", "--suite", "stride", "--device", "cpu", "--option", "elements=4096");
    Path file = Files.writeString(dir.resolve("table.txt"), table.toString());
    assertThat(run("compare", json.toString(), file.toString())).isEqualTo(2);
    assertThat(err.toString()).contains(file + " line 1: not a result file from busload run").contains("no column");
    assertThat(out.toString()).isEmpty();
  }

  @Test
  void compare_csvWithABrokenLine_exit2NamingThatLine() throws Exception {
    List<String> lines = Files.readAllLines(csv);
    lines.set(3, lines.get(3).replaceFirst(",true,", ",maybe,"));
    Path broken = Files.write(dir.resolve("broken.csv"), lines);
    assertThat(run("compare", broken.toString(), json.toString())).isEqualTo(2);
    assertThat(err.toString()).contains(broken + " line 4: valid is 'maybe', not true or false");
  }

  @Test
  void compare_jsonOfAnotherShape_exit2NamingTheLine() throws Exception {
    Path other = Files.writeString(dir.resolve("other.json"), "[\n  {\"name\": \"x\"},\n  {\"name\": \"y\"}\n]\n");
    assertThat(run("compare", other.toString(), json.toString())).isEqualTo(2);
    assertThat(err.toString()).contains(other + " line 2: not a result from busload run (no id)");
  }

  @Test
  void compare_missingFileWithoutCoordinator_exit2() {
    assertThat(run("compare", json.toString(), dir.resolve("nope.json").toString())).isEqualTo(2);
    assertThat(err.toString()).contains("CANDIDATE '" + dir.resolve("nope.json") + "': no such file (and no "
        + "--coordinator to look it up as a sweep or device id)");
  }

  @Test
  void compare_badThreshold_exit2() {
    assertThat(run("compare", "--threshold", "1.5", json.toString(), json.toString())).isEqualTo(2);
    assertThat(err.toString()).contains("--threshold 1.5: must be from 0 to below 1");
  }
}
