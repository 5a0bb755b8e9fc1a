package io.busload.agent;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** The agent's command line run in-process, as the CLI tests run it: what it printed, and its exit code. */
abstract class InProcessCli {
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  /** {@code busload-agent args...}: standard output into {@link #out}, errors into {@link #err}. */
  int run(String... args) {
    CommandLine cli = Main.commandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    return cli.execute(args);
  }
}
