package io.busload.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A fleet's certificates from {@code ./busload certs}, the real script and keytool, as an operator makes them: the
 * tests then check what operators get, not certificates made some other way.
 */
public final class FleetCerts {
  private FleetCerts() {}

  /**
   * {@code ./busload certs --out out args...} ({@code --coordinator c1@127.0.0.1 --agent a1@127.0.0.1 ...}); returns
   * {@code out}, which holds a directory per member ({@code coordinator-c1}). Fails the test with the script's output
   * if the script fails or takes more than five minutes.
   */
  public static Path issue(Path out, String... args) throws IOException, InterruptedException {
    // Tests run in their module's directory; the launcher is at the repository root above it.
    Path script = Path.of("").toAbsolutePath().getParent().resolve("busload");
    List<String> command = new ArrayList<>(List.of("bash", script.toString(), "certs", "--out", out.toString()));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    assertThat(process.waitFor(300, TimeUnit.SECONDS)).as("./busload certs finished").isTrue();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.exitValue()).as("./busload certs: " + output).isZero();
    return out;
  }
}
