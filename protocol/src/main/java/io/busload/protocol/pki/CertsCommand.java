package io.busload.protocol.pki;

import io.busload.protocol.cluster.FleetTls;
import java.io.Console;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
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
 * are kept, so that running it twice never replaces a key a host already uses ({@code certs renew} does, on purpose).
 *
 * <p>The CA's password is never written beside the CA's keys: it comes from a file the operator names (made, owner
 * only, when the CA is), or from a prompt. Whoever copies {@code DIR/ca/} alone cannot use the keys.
 */
@Command(name = "certs", sortOptions = false, usageHelpAutoWidth = true,
    description = "Issues the fleet CA and per-host TLS certificates for the event bus and the bridge.",
    subcommands = CertsCommand.Renew.class,
    footer = {"",
        "HOST is a name, an address, or name@address[@address...]: gpu1@10.0.0.5 (both go into the certificate).",
        "",
        "Writes DIR/ca/ (the CA keys: keep them off the fleet, and their password apart from them) and DIR/ROLE-NAME/"
            + " per member, holding member.p12 (key and certificate), trust.p12 (what that member trusts) and"
            + " password (for both). Copy DIR/ROLE-NAME/ to /etc/busload/tls/ROLE/ on that host; BUSLOAD_TLS_DIR"
            + " names it.",
        "",
        "Running it again on the same DIR reuses the CA and issues only members that have no directory yet; 'certs"
            + " renew --out DIR' re-issues the members' certificates from the same CA. Host certificates last --days"
            + " (default 730), CAs 10 years."})
public final class CertsCommand implements Callable<Integer> {
  static final String CA_DIR = "ca";
  /** Where the CA's password was kept beside its keys: read (with a warning) from CAs made that way, never written. */
  static final String CA_PASSWORD_BESIDE = "password";

  @Spec CommandSpec spec;

  @Option(names = "--out", paramLabel = "DIR", description = "where the CA and the members go")
  Path out;

  @Option(names = "--ca-password-file", paramLabel = "FILE", defaultValue = "${env:BUSLOAD_CA_PASSWORD_FILE}",
      description = "the CA's password, outside DIR/ca/ (made with a new password when the CA is new);"
          + " default BUSLOAD_CA_PASSWORD_FILE, else a prompt")
  Path caPasswordFile;

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
    requireOut(spec, out);
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
    FleetCa ca = fleetCa(spec, out.resolve(CA_DIR), caPasswordFile, err);
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

  static void requireOut(CommandSpec spec, Path out) {
    if (out == null) {
      throw new ParameterException(spec.commandLine(), "Missing required option: '--out=DIR'");
    }
  }

  /** The CA in {@code caDir}, or a new one saved there, its password in {@code passwordFile}. */
  private static FleetCa fleetCa(CommandSpec spec, Path caDir, Path passwordFile, PrintWriter err)
      throws IOException {
    if (Files.exists(caDir.resolve(FleetCa.ROOT + ".p12"))) {
      return FleetCa.load(caDir, caPassword(spec, caDir, passwordFile, err));
    }
    char[] password;
    if (passwordFile != null) {
      checkApart(spec, caDir, passwordFile);
      if (Files.exists(passwordFile)) {
        password = read(passwordFile);
      } else {
        password = OwnerOnly.newPassword();
        OwnerOnly.directory(passwordFile.toAbsolutePath().getParent());
        OwnerOnly.write(passwordFile, (new String(password) + "\n").getBytes(StandardCharsets.US_ASCII));
        err.println("busload: the CA's password is in " + passwordFile + " (keep it apart from " + caDir + ")");
      }
    } else {
      password = prompt(spec, caDir, true);
    }
    FleetCa ca = FleetCa.create();
    ca.save(caDir, password);
    err.println("busload: fleet CA " + ca.fleetId() + " issued in " + caDir
        + " (keep it off the fleet: whoever holds it can admit members)");
    return ca;
  }

  /** The password of the existing CA in {@code caDir}. */
  static char[] caPassword(CommandSpec spec, Path caDir, Path passwordFile, PrintWriter err) throws IOException {
    if (passwordFile != null) {
      checkApart(spec, caDir, passwordFile);
      if (!Files.exists(passwordFile)) {
        throw new ParameterException(spec.commandLine(),
            "--ca-password-file: " + passwordFile + " does not exist (the CA in " + caDir + " exists)");
      }
      return read(passwordFile);
    }
    Path beside = caDir.resolve(CA_PASSWORD_BESIDE);
    if (Files.exists(beside)) {
      err.println("busload: warning: the CA's password lies beside its keys in " + beside
          + "; move it elsewhere and name it with --ca-password-file");
      return read(beside);
    }
    return prompt(spec, caDir, false);
  }

  private static void checkApart(CommandSpec spec, Path caDir, Path passwordFile) {
    if (passwordFile.toAbsolutePath().normalize().startsWith(caDir.toAbsolutePath().normalize())) {
      throw new ParameterException(spec.commandLine(), "--ca-password-file: " + passwordFile
          + " is inside " + caDir + "; keep the CA's password apart from its keys");
    }
  }

  private static char[] read(Path file) throws IOException {
    return Files.readString(file, StandardCharsets.UTF_8).strip().toCharArray();
  }

  private static char[] prompt(CommandSpec spec, Path caDir, boolean twice) {
    Console console = System.console();
    if (console == null) {
      throw new ParameterException(spec.commandLine(), "the CA's password: name its file with --ca-password-file"
          + " FILE or BUSLOAD_CA_PASSWORD_FILE (outside " + caDir + "), or run on a terminal to be asked for it");
    }
    char[] password = console.readPassword("Password of the fleet CA in %s: ", caDir);
    if (password == null || password.length == 0) {
      throw new ParameterException(spec.commandLine(), "the CA's password: none given");
    }
    if (twice && !Arrays.equals(password, console.readPassword("Again: "))) {
      throw new ParameterException(spec.commandLine(), "the CA's password: the two did not match");
    }
    return password;
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

  /**
   * {@code certs renew}: a new key and certificate for each member directory in {@code DIR} (or those named), from
   * the same CA, with the same role, name and host names, valid for {@code --days} from now. The files are replaced
   * atomically, so a member that reloads them on change picks them up without a restart.
   */
  @Command(name = "renew", sortOptions = false, usageHelpAutoWidth = true,
      description = "Re-issues members' certificates from the existing fleet CA (new keys, same names).")
  static final class Renew implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(names = "--out", paramLabel = "DIR", description = "the directory certs wrote")
    Path out;

    @Option(names = "--ca-password-file", paramLabel = "FILE", defaultValue = "${env:BUSLOAD_CA_PASSWORD_FILE}",
        description = "the CA's password (default BUSLOAD_CA_PASSWORD_FILE, else a prompt)")
    Path caPasswordFile;

    @Option(names = "--days", defaultValue = "730", paramLabel = "N", description = "validity of the new certificates")
    int days;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    boolean help;

    @picocli.CommandLine.Parameters(paramLabel = "ROLE-NAME", arity = "0..*",
        description = "the members to renew (default: every member directory in DIR)")
    List<String> members = new ArrayList<>();

    @Override
    public Integer call() throws IOException {
      requireOut(spec, out);
      if (days < 1) {
        throw new ParameterException(spec.commandLine(), "--days must be a positive number of days, not " + days);
      }
      Path caDir = out.resolve(CA_DIR);
      if (!Files.exists(caDir.resolve(FleetCa.ROOT + ".p12"))) {
        throw new ParameterException(spec.commandLine(), "--out: no fleet CA in " + caDir + " to renew from");
      }
      List<Path> dirs = new ArrayList<>();
      if (members.isEmpty()) {
        try (var listing = Files.list(out)) {
          listing.filter(d -> Files.exists(d.resolve(FleetTls.KEY_STORE))).sorted().forEach(dirs::add);
        }
      } else {
        for (String member : members) {
          Path dir = out.resolve(member);
          if (member.contains("/") || !Files.exists(dir.resolve(FleetTls.KEY_STORE))) {
            throw new ParameterException(spec.commandLine(), "'" + member + "' is not a member directory in " + out);
          }
          dirs.add(dir);
        }
      }
      PrintWriter err = spec.commandLine().getErr();
      FleetCa ca = FleetCa.load(caDir, caPassword(spec, caDir, caPasswordFile, err));
      for (Path dir : dirs) {
        X509Certificate old = current(dir);
        String role = FleetTls.roleOf(old);
        String name = FleetTls.nameOf(old);
        List<String> hosts = new ArrayList<>();
        try {
          for (List<?> san : old.getSubjectAlternativeNames()) {
            hosts.add(String.valueOf(san.get(1)));
          }
        } catch (java.security.cert.CertificateParsingException e) {
          throw new IOException(dir + ": cannot read the certificate's host names: " + e.getMessage(), e);
        }
        hosts.remove(name);
        FleetCa.write(ca.issue(role, name, hosts, Duration.ofDays(days)), out);
        spec.commandLine().getOut().println(dir);
      }
      spec.commandLine().getOut().flush();
      err.flush();
      return 0;
    }

    /** The member's certificate now, read even when it has expired. */
    private static X509Certificate current(Path dir) throws IOException {
      char[] password = read(dir.resolve(FleetTls.PASSWORD_FILE));
      try (var in = Files.newInputStream(dir.resolve(FleetTls.KEY_STORE))) {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(in, password);
        return (X509Certificate) store.getCertificate("member");
      } catch (java.security.GeneralSecurityException e) {
        throw new IOException(dir.resolve(FleetTls.KEY_STORE) + ": " + e.getMessage(), e);
      }
    }
  }
}
