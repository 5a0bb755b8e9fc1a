package io.busload.agent.crosscheck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.agent.report.CsvPrinter;
import io.busload.protocol.JsonCodec;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The parts of the fleet's acceptance that need no fleet: choosing devices, reading states, splitting, counting. */
class FleetAcceptanceTest {
  @TempDir Path dir;

  private static JsonNode json(String text) throws IOException {
    return JsonCodec.MAPPER.readTree(text);
  }

  private static String row(String id, String device, String kernel, String median) {
    return id + ",s,r,2026-11-24T00:00:00Z," + device + ",NVIDIA H100," + kernel + ",size=64,true," + median
        + ",1,1,0.001,20,8,1,8,\"ok, \"\"quoted\"\"\",,\r\n";
  }

  @Test
  void chooseDevices_oneNamedBySuffix_onlyThatOneOnline() throws IOException {
    JsonNode devices = json("[{\"id\":\"gpu/cuda:1\",\"state\":\"ONLINE\"},"
        + "{\"id\":\"gpu/cuda:0\",\"state\":\"OFFLINE\"},{\"id\":\"gpu/cpu\"}]");

    assertThat(FleetAcceptance.chooseDevices(devices, "cuda:1", 1)).containsExactly("gpu/cuda:1");
    assertThat(FleetAcceptance.chooseDevices(devices, "cuda:0", 1)).as("offline").isEmpty();
    assertThat(FleetAcceptance.chooseDevices(devices, "cpu", 1)).as("no state is online").containsExactly("gpu/cpu");
    assertThat(FleetAcceptance.chooseDevices(devices, "da:1", 1)).as("a suffix after the slash only").isEmpty();
  }

  @Test
  void chooseDevices_allBeforeEnoughAreOnline_noneThenEverySorted() throws IOException {
    JsonNode two = json("[{\"id\":\"gpu/cuda:1\",\"state\":\"ONLINE\"},{\"id\":\"gpu/cuda:0\",\"state\":\"ONLINE\"}]");

    assertThat(FleetAcceptance.chooseDevices(two, "all", 3)).isEmpty();
    assertThat(FleetAcceptance.chooseDevices(two, "all", 2)).containsExactly("gpu/cuda:0", "gpu/cuda:1");
  }

  @Test
  void stateOf_sweepsAnswer_listedStateOrQuestionMark() throws IOException {
    JsonNode sweeps = json("[{\"id\":\"a\",\"state\":\"RUNNING\"},{\"id\":\"b\",\"state\":\"DONE\"}]");

    assertThat(FleetAcceptance.stateOf(sweeps, "b")).isEqualTo("DONE");
    assertThat(FleetAcceptance.stateOf(sweeps, "a")).isEqualTo("RUNNING");
    assertThat(FleetAcceptance.stateOf(sweeps, "c")).isEqualTo("?");
    assertThat(FleetAcceptance.finished("DONE")).isTrue();
    assertThat(FleetAcceptance.finished("FAILED")).isTrue();
    assertThat(FleetAcceptance.finished("RUNNING")).isFalse();
    assertThat(FleetAcceptance.finished("-")).isFalse();
  }

  @Test
  void firedSweep_scheduleBeforeAndAfterItFired_nullThenTheFiresSweep() throws IOException {
    assertThat(FleetAcceptance.firedSweep(json("{\"id\":\"s\",\"fires\":[]}"))).isNull();
    assertThat(FleetAcceptance.firedSweep(null)).isNull();
    assertThat(FleetAcceptance.firedSweep(json("{\"id\":\"s\",\"fires\":[{\"sweepId\":null,\"message\":\"late\"},"
        + "{\"sweepId\":\"sw-1\"}]}"))).isEqualTo("sw-1");
  }

  @Test
  void fireTime_delays_firstWholeMinuteAtLeastThatLate() {
    Instant now = Instant.parse("2026-11-28T01:59:30Z");

    assertThat(FleetAcceptance.fireTime(now, Duration.ofSeconds(60)).toInstant())
        .isEqualTo(Instant.parse("2026-11-28T02:01:00Z"));
    assertThat(FleetAcceptance.fireTime(now, Duration.ofSeconds(30)).toInstant())
        .as("exactly on a minute").isEqualTo(Instant.parse("2026-11-28T02:00:00Z"));
    assertThat(FleetAcceptance.fireTime(now, Duration.ofSeconds(31)).toInstant())
        .isEqualTo(Instant.parse("2026-11-28T02:01:00Z"));
    assertThat(FleetAcceptance.cron(FleetAcceptance.fireTime(now, Duration.ofSeconds(60)))).isEqualTo("1 2 * * *");
  }

  @Test
  void splitByDevice_twoDevicesInterleaved_oneCsvEachWithTheHeaderAndRowsUnchanged() {
    String a1 = row("a1", "h/cuda:1", "copy", "1.0E-4");
    String b1 = row("b1", "h/cuda:0", "copy", "2.0E-4");
    String a2 = row("a2", "h/cuda:1", "stride", "3.0E-4");
    String csv = CsvPrinter.HEADER + "\r\n" + a1 + b1 + a2;

    Map<String, String> split = FleetAcceptance.splitByDevice(csv);

    assertThat(split.keySet()).containsExactly("cuda0", "cuda1");
    assertThat(split.get("cuda0")).isEqualTo(CsvPrinter.HEADER + "\r\n" + b1);
    assertThat(split.get("cuda1")).isEqualTo(CsvPrinter.HEADER + "\r\n" + a1 + a2);
    assertThat(FleetComparison.compare(split.get("cuda1"), split.get("cuda1")).rows()).hasSize(2);
  }

  @Test
  void splitByDevice_noDeviceIdColumn_refusedNamingTheColumn() {
    assertThatThrownBy(() -> FleetAcceptance.splitByDevice("id,kernel\n1,copy\n"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("deviceId");
    assertThat(FleetAcceptance.splitByDevice("")).isEmpty();
  }

  @Test
  void exportCounts_duplicatedIdAndInvalidResult_countedApart() {
    String csv = CsvPrinter.HEADER + "\n" + row("a", "h/cpu", "copy", "1") + row("a", "h/cpu", "copy", "1")
        + row("b", "h/cpu", "x", "1");
    String json = "[{\"id\":\"a\",\"valid\":true},{\"id\":\"a\",\"valid\":true},{\"id\":\"b\",\"valid\":false}]";

    assertThat(FleetAcceptance.exportCounts(csv, json))
        .isEqualTo("3 CSV rows, 3 JSON results, 2 distinct ids, 2 valid");
    assertThat(FleetAcceptance.exportCounts("", "not json")).isEqualTo("0 CSV rows, 0 JSON results, 0 distinct ids,"
        + " 0 valid");
  }

  @Test
  void evidence_logs_firstFourTlsLinesThenFirstTwoBridgeLines() throws IOException {
    Path coordinator = Files.writeString(dir.resolve("c.log"), String.join("\n", "start", "TLS 1", "mutual tls 2",
        "agent bridge on 7704", "agent bridge again", "agent bridge third", "tls 3", "tls 4", "tls 5") + "\n");

    assertThat(FleetAcceptance.evidence(List.of(coordinator, dir.resolve("missing.log"))))
        .containsExactly("TLS 1", "mutual tls 2", "tls 3", "tls 4", "agent bridge on 7704", "agent bridge again");
  }

  @Test
  void summary_lines_prefixedWithSecondsSinceStartAndAppended() throws IOException {
    Path file = dir.resolve("summary.txt");
    Files.writeString(file, "[3s] standalone run\n");
    StringWriter echo = new StringWriter();
    FleetAcceptance.Summary summary = new FleetAcceptance.Summary(file, Instant.parse("2026-11-28T01:00:00Z"),
        Clock.fixed(Instant.parse("2026-11-28T01:00:42.9Z"), ZoneOffset.UTC), new PrintWriter(echo));

    summary.say("fleet up");
    summary.raw("a log line");

    assertThat(Files.readString(file)).isEqualTo("[3s] standalone run\n[42s] fleet up\na log line\n");
    assertThat(echo.toString()).isEqualTo("[42s] fleet up" + System.lineSeparator());
  }

  /** The required options, with a token file and an empty standalone CSV written into the test's folder; then more. */
  private String[] required(String coordinator, Path out, String... more) throws IOException {
    Path token = Files.writeString(dir.resolve("token"), "t\n");
    Path standalone = Files.writeString(dir.resolve("s.csv"), CsvPrinter.HEADER + "\n");
    List<String> args = new ArrayList<>(List.of("--coordinator", coordinator, "--token-file", token.toString(),
        "--standalone", standalone.toString(), "--out", out.toString()));
    args.addAll(List.of(more));
    return args.toArray(String[]::new);
  }

  @Test
  void command_toleranceBelowZero_usageErrorNamingTheOption() throws IOException {
    StringWriter err = new StringWriter();
    CommandLine line = new CommandLine(new FleetAcceptance()).setErr(new PrintWriter(err));

    int exit = line.execute(required("http://127.0.0.1:1", dir.resolve("out"), "--tolerance", "-0.5"));

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString()).contains("--tolerance: a fraction of at least 0");
    assertThat(dir.resolve("out")).doesNotExist();
  }

  @Test
  void command_noCoordinatorListening_exitOneSayingTheDeviceNeverCameOnline() throws IOException {
    StringWriter out = new StringWriter();
    CommandLine line = new CommandLine(new FleetAcceptance()).setOut(new PrintWriter(out));

    int exit = line.execute(required("http://127.0.0.1:" + io.busload.testsupport.Ports.free(), dir, "--device", "cpu",
        "--online-wait", "1"));

    assertThat(exit).isEqualTo(1);
    assertThat(Files.readString(dir.resolve("summary.txt"))).contains("no device cpu online after 1 s");
  }
}
