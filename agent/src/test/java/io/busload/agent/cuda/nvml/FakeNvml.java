package io.busload.agent.cuda.nvml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The stand-in NVML the binding's tests load: {@code src/test/resources/nvml/fake-nvml.c} built with the host's C
 * compiler, one library per set of {@code -D} flags, so each test gets the answers (and faults) it needs. The tests
 * are skipped, saying why, where there is no compiler; CI installs one.
 */
final class FakeNvml {
  private FakeNvml() {}

  /** The library built with {@code flags} into {@code dir}. */
  static Path build(Path dir, String... flags) throws IOException, InterruptedException {
    Path source = Path.of("src/test/resources/nvml/fake-nvml.c");
    Path library = dir.resolve("libfake-nvml" + String.join("", flags).replace('=', '_') + ".so");
    List<String> command = new ArrayList<>(List.of("cc", "-shared", "-fPIC"));
    command.addAll(List.of(flags));
    command.addAll(List.of("-o", library.toString(), source.toString()));
    Process cc;
    try {
      cc = new ProcessBuilder(command).redirectErrorStream(true).start();
    } catch (IOException e) {
      assumeTrue(false, "no C compiler on this host: " + e.getMessage());
      throw e;
    }
    String output = new String(cc.getInputStream().readAllBytes());
    assertThat(cc.waitFor()).as(output).isZero();
    return library;
  }
}
