package io.busload.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.protocol.pki.CertsCommand;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import picocli.CommandLine;

/**
 * {@code ./busload certs}' own command, in-process, as test-support's {@code FleetCerts} runs it (this module's tests
 * cannot use test-support, which is built on this module).
 */
final class FleetCerts {
  private FleetCerts() {}

  /** {@code ./busload certs --out out args...}; fails the test with the command's output if it fails. */
  static Path issue(Path out, String... args) {
    // The CA's password beside the directory, not in it, as an operator keeps it.
    List<String> command = new ArrayList<>(List.of("--out", out.toString(), "--ca-password-file",
        caPasswordFile(out).toString()));
    command.addAll(List.of(args));
    StringWriter output = new StringWriter();
    CommandLine certs = CertsCommand.commandLine();
    certs.setOut(new PrintWriter(output, true));
    certs.setErr(new PrintWriter(output, true));
    assertThat(certs.execute(command.toArray(String[]::new))).as("./busload certs: " + output).isZero();
    return out;
  }

  static Path caPasswordFile(Path out) {
    return out.resolveSibling(out.getFileName() + "-ca-password");
  }

  /** Every password of the fleet in {@code out}: the CA's (kept beside {@code out}) and each member's. */
  static List<String> passwords(Path out) throws IOException {
    Path caPassword = caPasswordFile(out);
    try (Stream<Path> files = Stream.concat(Files.walk(out), Stream.of(caPassword))) {
      return files.filter(f -> f.equals(caPassword) || f.getFileName().toString().equals("password")).map(f -> {
        try {
          return Files.readString(f).strip();
        } catch (IOException e) {
          throw new IllegalStateException(e);
        }
      }).toList();
    }
  }
}
