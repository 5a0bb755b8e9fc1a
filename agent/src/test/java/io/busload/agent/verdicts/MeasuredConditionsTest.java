package io.busload.agent.verdicts;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.agent.report.CsvPrinter;
import io.busload.protocol.Clocks;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import io.busload.protocol.ResultStatus;
import io.busload.protocol.Sampling;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code busload compare} judges clocks from the typed fields, from JSON and from CSV, and from the method
 * sentence only for results written before them. The results are an H100's (docs/results), whose NVML clocks read
 * SM 1980 MHz and memory 2619 MHz; their sentences are replaced by one claiming other clocks.
 */
class MeasuredConditionsTest {
  private static final String OTHER_CLOCKS = "GPU before: sm 1000 MHz, mem 1500 MHz, 40 C, throttle reasons 0x0; "
      + "after: sm 1000 MHz, mem 1500 MHz, 41 C, throttle reasons 0x0";

  @TempDir
  Path dir;

  private static KernelResult measured() throws Exception {
    KernelResult[] all = JsonCodec.fromJson(Files.readAllBytes(
        Path.of("../docs/results/2026-11-24-h100-interconnect/interconnect-cuda0.json")), KernelResult[].class);
    return List.of(all).stream().filter(r -> r.sampling() != null && r.valid()).findFirst().orElseThrow()
        .withMethod(OTHER_CLOCKS);
  }

  @Test
  void json_typedClocks_winOverTheSentence() throws Exception {
    KernelResult r = measured();
    assertThat(r.sampling().clocks().smMaxMHz()).isEqualTo(1980);

    var conditions = Measured.of(r).conditions();

    assertThat(conditions.smMHz()).isEqualTo(1980.0);
    assertThat(conditions.memMHz()).isEqualTo(2619.0);
  }

  @Test
  void resultWithoutTypedClocks_clocksFromItsSentence() throws Exception {
    KernelResult old = measured().withSampling(ResultStatus.MEASURED, null);

    assertThat(Measured.of(old).conditions().smMHz()).isEqualTo(1000.0);
  }

  @Test
  void clocksNotRead_noFigures() throws Exception {
    KernelResult r = measured();
    Sampling s = r.sampling();
    KernelResult notRead = r.withSampling(ResultStatus.MEASURED, new Sampling(s.heldSamples(), s.unheldSamples(),
        s.retimedSamples(), s.stopReason(), Clocks.notRead("no NVML here"), s.cache()));

    assertThat(Measured.of(notRead).conditions().smMHz()).isNull();
  }

  @Test
  void csv_typedColumns_winOverTheSentence() throws Exception {
    StringWriter csv = new StringWriter();
    new CsvPrinter().print(List.of(measured()), new PrintWriter(csv));
    Path file = dir.resolve("results.csv");
    Files.writeString(file, csv.toString());

    List<Measured> read = ResultFiles.read(file);

    assertThat(read).singleElement().satisfies(m -> {
      assertThat(m.conditions().smMHz()).isEqualTo(1980.0);
      assertThat(m.conditions().memMHz()).isEqualTo(2619.0);
    });
  }
}
