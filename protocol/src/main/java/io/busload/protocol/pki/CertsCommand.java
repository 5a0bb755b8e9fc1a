package io.busload.protocol.pki;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code ./busload certs}: the fleet CA and one key store directory per member. Running it again on the same
 * directory reuses the CA, so that members issued later join the same fleet; members that already have a directory
 * are kept, so that running it twice never replaces a key a host already uses.
 */
@Command(name = "certs", sortOptions = false, usageHelpAutoWidth = true,
    description = "Issues the fleet CA and per-host TLS certificates for the event bus and the bridge.",
    footer = {"",
        "HOST is a name, an address, or name@address[@address...]: gpu1@10.0.0.5 (both go into the certificate).",
        "Writes DIR/ca/ (the CA keys: keep them off the fleet) and DIR/ROLE-NAME/ per member, holding member.p12",
        "(key and certificate), trust.p12 (what that member trusts) and password (for both). Copy DIR/ROLE-NAME/ to",
        "/etc/busload/tls/ROLE/ on that host; BUSLOAD_TLS_DIR names it. Running it again on the same DIR reuses the",
        "CA and issues only members that have no directory yet. Host certificates last --days (default 730), CAs",
        "10 years."})
public final class CertsCommand implements Callable<Integer> {
  static final String CA_DIR = "ca";
  static final String CA_PASSWORD = "password";

  @Spec CommandSpec spec;

  @Option(names = "--out", required = true, paramLabel = "DIR", description = "where the CA and the members go")
  Path out;

  @Option(names = {"--coordinator", "--coordinators"}, split = ",", paramLabel = "HOST",
      description = "coordinators to issue (issued by the coordinator CA; they trust the root)")
  List<String> coordinators = new ArrayList<>();

  @Option(names = {"--agent", "--agents"}, split = ",", paramLabel = "HOST",
      description = "agents to issue (issued by the member CA; they trust only the coordinator CA)")
  List<String> agents = new ArrayList<>();

  @Option(names = {"--dashboard", "--dashboards"}, split = ",", paramLabel = "HOST",
      description = "dashboards to issue (as agents)")
  List<String> dashboards = new ArrayList<>();

  @Option(names = "--days", defaultValue = "730", paramLabel = "N", description = "validity of host certificates")
  int days;

  @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
  boolean help;

  /** A member to issue: its role, the name in its certificate and directory, and the further names it answers to. */
  record Host(String role, String name, List<String> alternatives) {}

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The command line, for {@link #main}, for the launcher's {@code up} and for tests that run it in-process. */
  public static CommandLine commandLine() {
    return new CommandLine(new CertsCommand());
  }

  @Override
  public Integer call() throws IOException {
    if (days < 1) {
      throw new ParameterException(spec.commandLine(), "--days must be a positive number of days, not " + days);
    }
    List<Host> hosts = new ArrayList<>();
    hosts.addAll(hosts("coordinator", "--coordinator", coordinators));
    hosts.addAll(hosts("agent", "--agent", agents));
    hosts.addAll(hosts("dashboard", "--dashboard", dashboards));
    if (hosts.isEmpty()) {
      throw new ParameterException(spec.commandLine(), "name at least one --coordinator, --agent or --dashboard");
    }
    PrintWriter err = spec.commandLine().getErr();
    PrintWriter stdout = spec.commandLine().getOut();
    FleetCa ca = fleetCa(out.resolve(CA_DIR), err);
    for (Host host : hosts) {
      Path dir = out.resolve(host.role() + "-" + host.name());
      if (Files.exists(dir)) {
        err.println("busload: " + dir + " exists; kept (delete it to issue again)");
      } else {
        FleetCa.write(ca.issue(host.role(), host.name(), host.alternatives(), Duration.ofDays(days)), out);
      }
      stdout.println(dir);
    }
    stdout.flush();
    err.flush();
    return 0;
  }

  /** The CA in {@code caDir}, or a new one saved there with a new password beside it. */
  private static FleetCa fleetCa(Path caDir, PrintWriter err) throws IOException {
    Path passwordFile = caDir.resolve(CA_PASSWORD);
    if (Files.exists(caDir.resolve(FleetCa.ROOT + ".p12"))) {
      return FleetCa.load(caDir, Files.readString(passwordFile, StandardCharsets.US_ASCII).strip().toCharArray());
    }
    FleetCa ca = FleetCa.create();
    char[] password = OwnerOnly.newPassword();
    OwnerOnly.directory(caDir);
    OwnerOnly.write(passwordFile, (new String(password) + "\n").getBytes(StandardCharsets.US_ASCII));
    ca.save(caDir, password);
    err.println("busload: fleet CA " + ca.fleetId() + " issued in " + caDir
        + " (keep it off the fleet: whoever holds it can admit members)");
    return ca;
  }

  /** {@code values} of {@code option} as hosts, each checked; blanks (from {@code a,,b}) are skipped. */
  private List<Host> hosts(String role, String option, List<String> values) {
    List<Host> hosts = new ArrayList<>();
    for (String value : values) {
      String host = value.strip();
      if (host.isEmpty()) {
        continue;
      }
      List<String> parts = Arrays.stream(host.split("@")).filter(p -> !p.isEmpty()).toList();
      if (!host.matches("[A-Za-z0-9._:@-]+") || host.startsWith("@") || parts.isEmpty()) {
        throw new ParameterException(spec.commandLine(),
            option + ": '" + host + "' is not a host name or address (NAME or NAME@ADDRESS[@ADDRESS...])");
      }
      hosts.add(new Host(role, parts.getFirst(), parts.subList(1, parts.size())));
    }
    return hosts;
  }
}
