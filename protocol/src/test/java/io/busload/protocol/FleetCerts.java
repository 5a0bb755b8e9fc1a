package io.busload.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs the launcher's {@code ./busload certs} (the real script and keytool, as an operator would), so the tests
 * check what operators get, not certificates made some other way.
 */
final class FleetCerts {
  private FleetCerts() {}

  /** {@code ./busload certs --out out args...}; fails the test with the script's output if it fails. */
  static Path issue(Path out, String... args) throws IOException, InterruptedException {
    Path script = Path.of("").toAbsolutePath().getParent().resolve("busload");
    assertThat(script).as("the launcher at the repository root").isRegularFile();
    List<String> command = new ArrayList<>(List.of("bash", script.toString(), "certs", "--out", out.toString()));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    boolean finished = process.waitFor(300, TimeUnit.SECONDS);
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(finished).as("./busload certs finished: " + output).isTrue();
    assertThat(process.exitValue()).as("./busload certs: " + output).isZero();
    return out;
  }

  /** Every password file under {@code out}: the CA's and each member's. */
  static List<String> passwords(Path out) throws IOException {
    try (Stream<Path> files = Files.walk(out)) {
      return files.filter(f -> f.getFileName().toString().equals("password")).map(f -> {
        try {
          return Files.readString(f).strip();
        } catch (IOException e) {
          throw new IllegalStateException(e);
        }
      }).toList();
    }
  }
}
