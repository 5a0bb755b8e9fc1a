package io.busload.agent;

import io.busload.agent.verdicts.CompareCommand;
import io.busload.agent.verdicts.EvaluateCommand;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * {@code busload-agent run ...} measures and prints; {@code busload-agent agent ...} serves the fleet; {@code
 * busload-agent push ...} brings what {@code run} printed to a coordinator from a host outside the fleet; {@code
 * busload-agent token ...} manages the coordinator's REST API tokens.
 */
@Command(name = "busload-agent", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
    description = "Measures GPU memory coalescing; alone (run) or for a coordinator (agent); pushes results (push);"
        + " judges results (compare); manages API tokens (token).",
    subcommands = {RunCommand.class, AgentCommand.class, PushCommand.class, CompareCommand.class,
        EvaluateCommand.class, TokenCommand.class, BackupCommand.class})
public final class Main implements Runnable {
  @Spec
  CommandSpec spec;

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The command line, for {@link #main} and for tests that run it in-process. */
  public static CommandLine commandLine() {
    return new CommandLine(new Main()).setCaseInsensitiveEnumValuesAllowed(true);
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "missing command: run, agent, push, compare or token");
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"busload-agent " + AgentVersion.get()};
    }
  }
}
