package io.busload.coordinator.push;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.within;

import io.busload.protocol.KernelResult;
import io.busload.protocol.MeasuredBy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * BabelStream's --csv output as its CUDA model printed it on the lent H100 and H200
 * (docs/results/2026-11-27-health-and-babelstream says how they were made), read into results.
 */
class BabelStreamOutputTest {
  static final Path RUNS = Path.of("..", "docs", "results", "2026-11-27-health-and-babelstream");
  private static final Instant AT = Instant.parse("2026-11-27T19:06:30Z");
  private static final PushedFile.Context LAB = new PushedFile.Context("lab-h100", AT, "5.0");

  static byte[] file(String gpu, String name) throws Exception {
    return Files.readAllBytes(RUNS.resolve(gpu).resolve("babelstream").resolve(name));
  }

  @Test
  void read_h100Fp64_fiveCheckedKernelsWithTheDeviceTheToolPrintedAndItsByteCount() throws Exception {
    PushedFile file = PushedFile.read(file("h100", "fp64-1.csv"), LAB);

    assertThat(file.format()).isEqualTo(PushedFile.Format.BABELSTREAM);
    assertThat(file.measuredBy()).isEqualTo(new MeasuredBy("BabelStream", "5.0", MeasuredBy.MEAN,
        file.measuredBy().check()));
    assertThat(file.rows()).extracting(r -> r.result().kernel()).containsExactly("babelstream-copy",
        "babelstream-mul", "babelstream-add", "babelstream-triad", "babelstream-dot");
    KernelResult copy = file.rows().getFirst().result();
    assertThat(file.rows().getFirst().line()).isEqualTo(7);
    assertThat(copy.suite()).isEqualTo("babelstream");
    assertThat(copy.device().id()).isEqualTo("lab-h100/cuda:0");
    assertThat(copy.device().name()).isEqualTo("NVIDIA H100 80GB HBM3");
    assertThat(copy.device().computeCapability()).isEqualTo("9.0");
    assertThat(copy.device().multiprocessors()).isEqualTo(132);
    assertThat(copy.device().driverVersion()).isEqualTo("13.0");
    assertThat(copy.device().theoreticalPeakBytesPerSecond()).isCloseTo(3352.32e9, within(1.0));
    assertThat(copy.params()).containsEntry("type", "fp64").containsEntry("elements", 33554432L);
    assertThat(copy.valid()).isTrue();
    assertThat(copy.bytesRead()).isEqualTo(33554432L * 8);
    assertThat(copy.bytesWritten()).isEqualTo(33554432L * 8);
    // Copy,100,33554432,8,2.90513e+06,0.000184801,0.000196296,0.000187289
    assertThat(copy.medianSeconds()).isEqualTo(0.000187289);
    assertThat(copy.minSeconds()).isEqualTo(0.000184801);
    assertThat(copy.maxSeconds()).isEqualTo(0.000196296);
    assertThat(copy.bandwidth()).isCloseTo(2.0 * 33554432 * 8 / 0.000187289, within(1.0));
    assertThat(copy.samples()).isEmpty();
    assertThat(copy.measuredAt()).isEqualTo(AT);
    assertThat(copy.method()).contains("BabelStream 5.0", "100 runs", "the mean of the other 99", "no samples");
    KernelResult triad = file.rows().get(3).result();
    assertThat(triad.bytesRead()).isEqualTo(2 * 33554432L * 8);
    assertThat(triad.bytesWritten()).isEqualTo(33554432L * 8);
    KernelResult dot = file.rows().get(4).result();
    assertThat(dot.bytesWritten()).isZero();
  }

  @Test
  void read_h200Fp32_typeFromSizeofAndTheH200sBus() throws Exception {
    PushedFile file = PushedFile.read(file("h200", "fp32.csv"), new PushedFile.Context("lab-h200", AT, "5.0"));

    KernelResult add = file.rows().get(2).result();
    assertThat(add.device().name()).isEqualTo("NVIDIA H200");
    assertThat(add.device().busWidthBits()).isEqualTo(6016);
    assertThat(add.params()).containsEntry("type", "fp32");
    assertThat(add.bytes()).isEqualTo(3 * 33554432L * 4);
  }

  @Test
  void read_sameFileTwice_sameIdsAndAnotherRunOtherIds() throws Exception {
    PushedFile once = PushedFile.read(file("h100", "fp64-1.csv"), LAB);
    PushedFile again = PushedFile.read(file("h100", "fp64-1.csv"), LAB);
    PushedFile other = PushedFile.read(file("h100", "fp64-2.csv"), LAB);

    assertThat(again.rows()).extracting(r -> r.result().id())
        .isEqualTo(once.rows().stream().map(r -> r.result().id()).toList());
    assertThat(other.rows()).extracting(r -> r.result().id())
        .doesNotContainAnyElementsOf(once.rows().stream().map(r -> r.result().id()).toList());
  }

  @Test
  void read_withoutVersionOrTimeOrWithAForgedVersion_refusedNamingTheField() throws Exception {
    byte[] csv = file("h100", "fp64-1.csv");

    PushRefused noVersion = catchThrowableOfType(PushRefused.class,
        () -> PushedFile.read(csv, new PushedFile.Context("lab", AT, null)));
    PushRefused noTime = catchThrowableOfType(PushRefused.class,
        () -> PushedFile.read(csv, new PushedFile.Context("lab", null, "5.0")));

    PushRefused forged = catchThrowableOfType(PushRefused.class,
        () -> PushedFile.read(csv, new PushedFile.Context("lab", AT, "5.0\n12:00:00 ERROR forged log line")));

    assertThat(noVersion.field()).isEqualTo("toolVersion");
    assertThat(noVersion.getMessage()).contains("--tool-version");
    assertThat(noTime.field()).isEqualTo("measuredAt");
    assertThat(forged.field()).isEqualTo("toolVersion");
    assertThat(forged.getMessage()).contains("5.0?12:00:00");
  }

  @Test
  void read_textOutput_versionFromItsOwnLineButNotACsv() throws Exception {
    byte[] text = file("h100", "babelstream.txt");
    assertThat(new String(text, StandardCharsets.UTF_8)).contains("Version: 5.0");

    PushRefused refused = catchThrowableOfType(PushRefused.class, () -> PushedFile.read(text, LAB));

    assertThat(refused.getMessage()).contains("BabelStream's --csv output");
  }

  @Test
  void read_aFigureThatIsNotTheBytesOverTheMinTime_refusedOnItsLineAndColumn() throws Exception {
    String csv = new String(file("h100", "fp64-1.csv"), StandardCharsets.UTF_8)
        .replace("Triad,100,33554432,8,2.93146e+06", "Triad,100,33554432,8,1.95431e+06");

    PushRefused refused = catchThrowableOfType(PushRefused.class,
        () -> PushedFile.read(csv.getBytes(StandardCharsets.UTF_8), LAB));

    assertThat(refused.line()).isEqualTo(10);
    assertThat(refused.field()).isEqualTo("max_MB_per_sec");
    assertThat(refused.getMessage()).contains("not the tool's");
  }

  @Test
  void read_unknownKernelOrCutRow_refusedOnItsLine() throws Exception {
    String csv = new String(file("h100", "fp64-1.csv"), StandardCharsets.UTF_8);

    PushRefused unknown = catchThrowableOfType(PushRefused.class, () -> PushedFile.read(
        csv.replace("Mul,", "Scale,").getBytes(StandardCharsets.UTF_8), LAB));
    PushRefused cut = catchThrowableOfType(PushRefused.class, () -> PushedFile.read(
        csv.substring(0, csv.indexOf("Dot,") + 20).getBytes(StandardCharsets.UTF_8), LAB));

    assertThat(unknown.line()).isEqualTo(8);
    assertThat(unknown.field()).isEqualTo("function");
    assertThat(cut.line()).isEqualTo(11);
    assertThat(cut.getMessage()).contains("of the header's 8 columns");
  }
}
