package io.busload.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.protocol.pki.CertsCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;

/**
 * A fleet's certificates from {@code ./busload certs}' own command, run in-process with the options an operator
 * gives: the tests check what operators get, not certificates made some other way.
 */
public final class FleetCerts {
  private FleetCerts() {}

  /**
   * {@code ./busload certs --out out args...} ({@code --coordinator c1@127.0.0.1 --agent a1@127.0.0.1 ...}); returns
   * {@code out}, which holds a directory per member ({@code coordinator-c1}). Fails the test with the command's
   * output if it fails.
   */
  public static Path issue(Path out, String... args) {
    // The CA's password beside the directory, not in it, as an operator keeps it.
    List<String> command = new ArrayList<>(List.of("--out", out.toString(), "--ca-password-file",
        out.resolveSibling(out.getFileName() + "-ca-password").toString()));
    command.addAll(List.of(args));
    StringWriter output = new StringWriter();
    CommandLine certs = CertsCommand.commandLine();
    certs.setOut(new PrintWriter(output, true));
    certs.setErr(new PrintWriter(output, true));
    int exit = certs.execute(command.toArray(String[]::new));
    assertThat(exit).as("./busload certs: " + output).isZero();
    return out;
  }
}
