package io.busload.agent;

import io.busload.agent.device.Devices;
import io.busload.agent.push.PushClient;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * Sends the files {@code run --format json|csv} wrote to a coordinator, from a host that cannot join the cluster.
 * Each file is stored whole or refused whole; a file pushed again stores nothing new and says so.
 */
@Command(name = "push", mixinStandardHelpOptions = true,
    description = {"Push results files that 'run --format json' or '--format csv' wrote to a coordinator, or"
        + " BabelStream's --csv output (its CUDA model), stored as the suite 'babelstream', marked as measured by it.",
        "Each file is stored whole or not at all; pushing a file again stores nothing twice."},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:every file stored (or already there)", "1:a file was refused (the reason names the line and"
        + " field) or cannot be read; the others were still pushed", "2:wrong usage, or no API token",
        "3:the coordinator cannot be reached, or failed", "4:the API token was refused"})
final class PushCommand implements Callable<Integer> {
  static final int REFUSED = 1;
  static final int UNREACHABLE = 3;
  static final int UNAUTHORIZED = 4;

  @Spec
  CommandSpec spec;

  @Option(names = "--coordinator", required = true, paramLabel = "URL",
      description = "The coordinator's REST API, e.g. http://coordinator:8081")
  String coordinator;

  @Mixin
  CoordinatorAccess access;

  @Option(names = "--host", description = "The host the results come from, as the coordinator records it"
      + " (default: this host's name)")
  String host;

  @Option(names = "--tool-version", paramLabel = "VERSION", description = "For another tool's output that does not"
      + " print its version (BabelStream's --csv): the version, as its output without --csv prints it")
  String toolVersion;

  @Option(names = "--measured-at", paramLabel = "INSTANT", description = "For another tool's output, which carries no"
      + " time: when it was measured, e.g. 2026-11-27T19:06:00Z (default: each file's modification time)")
  java.time.Instant measuredAt;

  @Parameters(arity = "1..*", paramLabel = "FILE", description = "JSON or CSV files written by 'run', or BabelStream"
      + " output")
  List<Path> files;

  @Override
  public Integer call() throws InterruptedException {
    PushClient client = client();
    String from = host != null ? host : Devices.hostName();
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    int exit = 0;
    for (Path file : files) {
      byte[] body;
      try {
        body = Files.readAllBytes(file);
      } catch (NoSuchFileException e) {
        err.println("busload push: " + file + ": no such file; not pushed");
        exit = REFUSED;
        continue;
      } catch (IOException e) {
        err.println("busload push: " + file + ": cannot be read (" + e.getMessage() + "); not pushed");
        exit = REFUSED;
        continue;
      }
      PushClient.Answer answer;
      try {
        answer = client.push(body, file.toString(), from, measuredAt != null ? measuredAt : modified(file),
            toolVersion);
      } catch (PushClient.Unreachable e) {
        // The same for every file that follows: stop rather than repeat it.
        err.println("busload push: " + e.getMessage() + "; " + file + " and the files after it not pushed");
        err.flush();
        return UNREACHABLE;
      }
      switch (answer) {
        case PushClient.Stored s -> out.println(file + ": " + s.stored() + " stored, " + s.alreadyPresent()
            + " already present (" + s.results() + " results; push " + s.pushId() + ", run"
            + (s.runIds().size() == 1 ? " " : "s ") + String.join(", ", s.runIds()) + ")");
        case PushClient.Refused r -> {
          err.println("busload push: " + file + ": refused (" + r.status() + "), nothing of it stored: "
              + r.detail());
          exit = REFUSED;
        }
        case PushClient.Unauthorized u -> {
          err.println("busload push: the coordinator at " + client.base() + " refused the API token (401): "
              + u.detail() + "; nothing pushed from " + file);
          err.flush();
          return UNAUTHORIZED;
        }
        case PushClient.Failed f -> {
          err.println("busload push: the coordinator at " + client.base() + " failed (" + f.status() + "): "
              + f.detail() + "; " + file + " and the files after it not pushed");
          err.flush();
          return UNREACHABLE;
        }
      }
      out.flush();
      err.flush();
    }
    return exit;
  }

  /** The file's modification time: when another tool that prints no time wrote it. Null where it cannot be read. */
  private static java.time.Instant modified(Path file) {
    try {
      return Files.getLastModifiedTime(file).toInstant().truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
    } catch (IOException e) {
      return null;
    }
  }

  /** The token's file is read, never the token echoed: it stays out of messages and the process list. */
  private PushClient client() {
    try {
      URI base = CoordinatorApi.base(coordinator);
      return new PushClient(base,
          access.token("no API token: pushing is a write; give --token-file FILE or set BUSLOAD_API_TOKEN_FILE"),
          access.trust(base));
    } catch (IllegalArgumentException e) {
      throw usage(e.getMessage());
    }
  }

  private CommandLine.ParameterException usage(String message) {
    return new CommandLine.ParameterException(spec.commandLine(), message);
  }
}
