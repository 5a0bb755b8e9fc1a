package io.busload.coordinator.fleet;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * How this coordinator measures through Slurm, from {@code BUSLOAD_SLURM_*}; absent when {@code BUSLOAD_SLURM_SPOOL}
 * is unset (a sweep that names a partition is then refused).
 *
 * @param spool a directory the compute nodes see at the same path: each job's script, certificate and output, and
 *     each node's outbox
 * @param caDir the member CA that issues each job's agent certificate ({@code fleet-id}, {@code member-ca.p12},
 *     {@code coordinator-ca.pem} from {@code ./busload certs}' {@code ca/}); null: jobs get no certificate, so their
 *     agents reach a bridge on loopback only
 * @param caPasswordFile the CA's password
 * @param bundle the Busload bundle on the nodes ({@code agent.jar}, {@code lib/}, {@code jvm.options})
 * @param java the {@code java} of JDK 25 on the nodes
 * @param bridge the {@code host:port} of this coordinator's bridge as the nodes reach it; null: the cluster host at
 *     the bridge port
 * @param minutes each job's time limit; its certificate lasts 15 minutes longer
 * @param idleSeconds how long a job's agent waits for another run before it exits
 */
public record SlurmSettings(Path spool, Path caDir, Path caPasswordFile, Path bundle, String java, String bridge,
    int minutes, int idleSeconds) {
  public static final int DEFAULT_MINUTES = 60;
  public static final int DEFAULT_IDLE_SECONDS = 30;

  /**
   * {@code BUSLOAD_SLURM_SPOOL}, {@code BUSLOAD_SLURM_CA_DIR} with {@code BUSLOAD_SLURM_CA_PASSWORD_FILE},
   * {@code BUSLOAD_SLURM_BUNDLE} (default: the directory of this coordinator's jar), {@code BUSLOAD_SLURM_JAVA}
   * (default: this JVM's {@code java}), {@code BUSLOAD_SLURM_BRIDGE}, {@code BUSLOAD_SLURM_MINUTES} (60) and
   * {@code BUSLOAD_SLURM_IDLE_SECONDS} (30).
   *
   * @throws IllegalArgumentException naming the variable that is wrong
   */
  public static Optional<SlurmSettings> fromEnvironment(Map<String, String> env) {
    String spool = value(env, "BUSLOAD_SLURM_SPOOL");
    if (spool == null) {
      return Optional.empty();
    }
    String ca = value(env, "BUSLOAD_SLURM_CA_DIR");
    String password = value(env, "BUSLOAD_SLURM_CA_PASSWORD_FILE");
    if ((ca == null) != (password == null)) {
      throw new IllegalArgumentException("BUSLOAD_SLURM_CA_DIR and BUSLOAD_SLURM_CA_PASSWORD_FILE go together: set"
          + " both (the member CA that issues each job's certificate, and its password) or neither");
    }
    if (ca != null && !Files.isRegularFile(Path.of(ca, "member-ca.p12"))) {
      throw new IllegalArgumentException("BUSLOAD_SLURM_CA_DIR: " + ca + " holds no member-ca.p12 (copy fleet-id,"
          + " member-ca.p12 and coordinator-ca.pem there from ./busload certs' ca/ directory)");
    }
    String bundle = value(env, "BUSLOAD_SLURM_BUNDLE");
    String java = value(env, "BUSLOAD_SLURM_JAVA");
    String bridge = value(env, "BUSLOAD_SLURM_BRIDGE");
    if (bridge != null && !bridge.matches("[A-Za-z0-9._:\\[\\]-]+:[0-9]{1,5}")) {
      throw new IllegalArgumentException("BUSLOAD_SLURM_BRIDGE: 'host:port', not '" + bridge + "'");
    }
    return Optional.of(new SlurmSettings(Path.of(spool).toAbsolutePath(), ca == null ? null : Path.of(ca),
        password == null ? null : Path.of(password),
        bundle != null ? Path.of(bundle) : ownBundle(),
        java != null ? java : ProcessHandle.current().info().command().orElse("java"), bridge,
        positive(env, "BUSLOAD_SLURM_MINUTES", DEFAULT_MINUTES),
        positive(env, "BUSLOAD_SLURM_IDLE_SECONDS", DEFAULT_IDLE_SECONDS)));
  }

  private static Path ownBundle() {
    try {
      Path jar = Path.of(SlurmSettings.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      return jar.getParent();
    } catch (java.net.URISyntaxException | RuntimeException e) {
      throw new IllegalArgumentException("BUSLOAD_SLURM_BUNDLE: unset, and this coordinator's own jar cannot be"
          + " found: name the bundle's directory on the nodes", e);
    }
  }

  private static String value(Map<String, String> env, String name) {
    String v = env.get(name);
    return v == null || v.isBlank() ? null : v.strip();
  }

  private static int positive(Map<String, String> env, String name, int fallback) {
    String v = value(env, name);
    if (v == null) {
      return fallback;
    }
    try {
      int n = Integer.parseInt(v);
      if (n > 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // named below
    }
    throw new IllegalArgumentException(name + ": a whole number above 0, not '" + v + "'");
  }
}
