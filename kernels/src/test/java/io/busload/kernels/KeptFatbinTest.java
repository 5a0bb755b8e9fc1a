package io.busload.kernels;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fatbin kept in src/main/fatbin: only a change to the kernels needs nvcc. The kept inputs must name
 * the sources as they are now, the build must ship the kept bytes, and a machine without nvcc must build the same
 * bytes and refuse changed kernels with a reason. Runs the real build script; needs bash, not nvcc.
 */
class KeptFatbinTest {
  private static final Path SCRIPT = Path.of("src/main/sh/build-fatbin.sh");
  private static final Path SOURCES = Path.of("src/main/cuda");
  private static final Path KEPT = Path.of("src/main/fatbin");
  private static final Path KEPT_FATBIN = KEPT.resolve("busload.fatbin");
  private static final Path KEPT_INPUTS = KEPT.resolve("busload.fatbin.inputs");

  @TempDir
  Path temp;

  @Test
  void keptInputs_matchTheSourcesAndNvccArguments() throws Exception {
    Run now = run(List.of("bash", SCRIPT.toString(), "--inputs", SOURCES.toString()), System.getenv("PATH"));
    assertThat(now.exit()).as(now.output()).isZero();
    assertThat(compared(Files.readString(KEPT_INPUTS)))
        .as("kernels/src/main/fatbin/busload.fatbin was built from other kernel sources or nvcc arguments than"
            + " these: run ./busload fatbin (needs nvcc) and commit kernels/src/main/fatbin")
        .isEqualTo(compared(now.output()));
  }

  @Test
  void keptFatbin_hasTheRecordedSha256() throws Exception {
    String recorded = Files.readAllLines(KEPT_INPUTS).stream()
        .filter(line -> line.startsWith("fatbin-sha256 "))
        .map(line -> line.substring("fatbin-sha256 ".length()))
        .findFirst().orElseThrow(() -> new AssertionError(KEPT_INPUTS + " has no fatbin-sha256 line"));
    assertThat(sha256(Files.readAllBytes(KEPT_FATBIN))).isEqualTo(recorded);
  }

  @Test
  void classPathFatbin_isTheKeptOne() throws Exception {
    assertThat(sha256(Fatbin.bytes())).as("SHA-256 of the fatbin the build put on the class path")
        .isEqualTo(sha256(Files.readAllBytes(KEPT_FATBIN)));
  }

  @Test
  void build_withoutNvccOnPath_writesTheKeptBytes() throws Exception {
    Path out = temp.resolve("classes/busload.fatbin");
    Run build = buildWithoutNvcc(SOURCES, out);
    assertThat(build.exit()).as(build.output()).isZero();
    assertThat(build.output()).contains("no nvcc needed");
    assertThat(sha256(Files.readAllBytes(out))).isEqualTo(sha256(Files.readAllBytes(KEPT_FATBIN)));
  }

  @Test
  void build_withoutNvccAfterAKernelChanged_failsNamingTheFileAndNvcc() throws Exception {
    Path changed = temp.resolve("cuda");
    Files.createDirectories(changed);
    try (Stream<Path> files = Files.list(SOURCES)) {
      for (Path f : files.toList()) {
        Files.copy(f, changed.resolve(f.getFileName()));
      }
    }
    Files.writeString(changed.resolve("stride.cu"), "\n// a changed kernel\n", StandardOpenOption.APPEND);
    Path out = temp.resolve("classes/busload.fatbin");

    Run build = buildWithoutNvcc(changed, out);

    assertThat(build.exit()).as(build.output()).isNotZero();
    assertThat(build.output()).contains("stride.cu").contains("needs nvcc").doesNotContain("copy.cu");
    assertThat(out).doesNotExist();
  }

  /**
   * Runs the build step as Maven does, on a PATH that holds every program of this one except nvcc: a folder of
   * links made here and removed after (JUnit's TempDir warns about every link that leads out of it).
   */
  private Run buildWithoutNvcc(Path sources, Path out) throws Exception {
    Path bin = Files.createTempDirectory("busload-path-without-nvcc");
    try {
      return buildWithoutNvcc(sources, out, bin);
    } finally {
      try (Stream<Path> links = Files.list(bin)) {
        for (Path link : links.toList()) {
          Files.delete(link);
        }
      }
      Files.delete(bin);
    }
  }

  private Run buildWithoutNvcc(Path sources, Path out, Path bin) throws Exception {
    for (String dir : System.getenv("PATH").split(File.pathSeparator)) {
      Path d = Path.of(dir.isEmpty() ? "." : dir);
      if (!Files.isDirectory(d)) {
        continue;
      }
      try (Stream<Path> programs = Files.list(d)) {
        for (Path p : programs.toList()) {
          Path link = bin.resolve(p.getFileName().toString());
          if (!p.getFileName().toString().equals("nvcc") && Files.isExecutable(p) && !Files.isDirectory(p)
              && Files.notExists(link, LinkOption.NOFOLLOW_LINKS)) {
            Files.createSymbolicLink(link, p.toAbsolutePath());
          }
        }
      }
    }
    assertThat(bin.resolve("nvcc")).doesNotExist();
    return run(List.of("bash", SCRIPT.toString(), "nvcc", sources.toString(), temp.resolve("work").toString(),
        out.toString(), KEPT.toString()), bin.toString());
  }

  private static List<String> compared(String inputs) {
    return inputs.lines().filter(l -> l.startsWith("nvcc-args ") || l.startsWith("source ")).toList();
  }

  private static String sha256(byte[] bytes) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
  }

  private record Run(int exit, String output) {}

  private static Run run(List<String> command, String path) throws IOException, InterruptedException {
    ProcessBuilder builder = new ProcessBuilder(new ArrayList<>(command)).redirectErrorStream(true);
    builder.environment().put("PATH", path);
    Process process = builder.start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("build-fatbin.sh finished").isTrue();
    return new Run(process.exitValue(), output);
  }
}
