package io.busload.protocol.pki;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.protocol.cluster.FleetTls;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code ./busload certs}' command line: what it writes for each role, and how it refuses bad options. */
class CertsCommandTest {
  @TempDir Path dir;

  record Run(int exit, String out, String err) {}

  /** {@code certs ARGS} with the CA's password in {@code dir/ca-password}, apart from the CA. */
  private Run certs(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--ca-password-file", caPassword().toString()));
    return run(all.toArray(String[]::new));
  }

  private Path caPassword() {
    return dir.resolve("ca-password");
  }

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine command = CertsCommand.commandLine();
    command.setOut(new PrintWriter(out, true));
    command.setErr(new PrintWriter(err, true));
    int exit = command.execute(args);
    return new Run(exit, out.toString(), err.toString());
  }

  private static KeyStore open(Path store, Path passwordFile) throws Exception {
    char[] password = Files.readString(passwordFile).strip().toCharArray();
    KeyStore keys = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(store)) {
      keys.load(in, password);
    }
    return keys;
  }

  private static X509Certificate trusted(Path member) throws Exception {
    KeyStore trust = open(member.resolve(FleetTls.TRUST_STORE), member.resolve(FleetTls.PASSWORD_FILE));
    List<String> aliases = Collections.list(trust.aliases());
    assertThat(aliases).hasSize(1);
    return (X509Certificate) trust.getCertificate(aliases.getFirst());
  }

  private static X509Certificate pem(Path file) throws Exception {
    try (InputStream in = Files.newInputStream(file)) {
      return (X509Certificate) java.security.cert.CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }

  @Test
  void certs_eachRole_directoryWithItsCertificate_coordinatorsTrustRoot_othersTheCoordinatorCa() throws Exception {
    Path out = dir.resolve("fleet");
    Run run = certs("--out", out.toString(), "--coordinator", "c1@localhost@127.0.0.1", "--agents", "gpu1,gpu2@10.0.0.5",
        "--dashboard", "d1@::1", "--days", "9");

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out().lines()).containsExactly(out.resolve("coordinator-c1").toString(),
        out.resolve("agent-gpu1").toString(), out.resolve("agent-gpu2").toString(),
        out.resolve("dashboard-d1").toString());
    assertThat(run.err()).contains("fleet CA").contains("issued in " + out.resolve("ca"));

    X509Certificate root = pem(out.resolve("ca/root.pem"));
    X509Certificate coordinatorCa = pem(out.resolve("ca/coordinator-ca.pem"));
    assertThat(trusted(out.resolve("coordinator-c1"))).isEqualTo(root);
    for (String member : List.of("agent-gpu1", "agent-gpu2", "dashboard-d1")) {
      assertThat(trusted(out.resolve(member))).as(member).isEqualTo(coordinatorCa);
    }
    FleetTls.Loaded coordinator = FleetTls.inDirectory(out.resolve("coordinator-c1")).load("coordinator");
    assertThat(coordinator.certificate().getSubjectAlternativeNames()).containsExactly(List.of(2, "c1"),
        List.of(2, "localhost"), List.of(7, "127.0.0.1"));
    X509Certificate gpu2 = FleetTls.inDirectory(out.resolve("agent-gpu2")).load("agent").certificate();
    assertThat(gpu2.getSubjectAlternativeNames()).containsExactly(List.of(2, "gpu2"), List.of(7, "10.0.0.5"));
    assertThat(Duration.between(gpu2.getNotBefore().toInstant(), gpu2.getNotAfter().toInstant()))
        .isEqualTo(Duration.ofDays(9));
    X509Certificate dashboard = FleetTls.inDirectory(out.resolve("dashboard-d1")).load("dashboard").certificate();
    assertThat(dashboard.getSubjectAlternativeNames()).containsExactly(List.of(2, "d1"), List.of(7, "0:0:0:0:0:0:0:1"));
    // Members are signed by their role's CA.
    gpu2.verify(pem(out.resolve("ca/member-ca.pem")).getPublicKey());
    coordinator.certificate().verify(coordinatorCa.getPublicKey());
  }

  @Test
  void certs_again_reusesTheCa_keepsExistingMembers() throws Exception {
    Path out = dir.resolve("fleet");
    assertThat(certs("--out", out.toString(), "--coordinator", "c1@127.0.0.1").exit()).isZero();
    String fleetId = Files.readString(out.resolve("ca/fleet-id")).strip();
    byte[] c1Before = Files.readAllBytes(out.resolve("coordinator-c1/member.p12"));

    Run again = certs("--out", out.toString(), "--coordinator", "c1@127.0.0.1", "--agent", "a1");

    assertThat(again.exit()).as(again.err()).isZero();
    assertThat(again.err()).contains(out.resolve("coordinator-c1") + " exists; kept").doesNotContain("fleet CA");
    assertThat(Files.readString(out.resolve("ca/fleet-id")).strip()).isEqualTo(fleetId);
    assertThat(Files.readAllBytes(out.resolve("coordinator-c1/member.p12"))).isEqualTo(c1Before);
    X509Certificate agent = FleetTls.inDirectory(out.resolve("agent-a1")).load("agent").certificate();
    agent.verify(pem(out.resolve("ca/member-ca.pem")).getPublicKey());
    assertThat(agent.getSubjectX500Principal().getName()).contains("Busload fleet " + fleetId);
  }

  @Test
  void certs_badDays_refusedNamingTheOption_nothingWritten() {
    Path out = dir.resolve("fleet");
    Run words = certs("--out", out.toString(), "--agent", "a1", "--days", "soon");
    Run zero = certs("--out", out.toString(), "--agent", "a1", "--days", "0");

    assertThat(words.exit()).isEqualTo(2);
    assertThat(words.err()).contains("--days").contains("soon");
    assertThat(zero.exit()).isEqualTo(2);
    assertThat(zero.err()).contains("--days must be a positive number of days");
    assertThat(out).doesNotExist();
  }

  @Test
  void certs_badHostOrNoMember_refusedNamingTheOption() {
    Path out = dir.resolve("fleet");
    Run badHost = certs("--out", out.toString(), "--agent", "a1", "--dashboard", "d 1;rm");
    Run none = certs("--out", out.toString());
    Run noOut = certs("--agent", "a1");

    assertThat(badHost.exit()).isEqualTo(2);
    assertThat(badHost.err()).contains("--dashboard: 'd 1;rm' is not a host name or address");
    assertThat(none.err()).contains("name at least one --coordinator, --agent or --dashboard");
    assertThat(noOut.err()).contains("--out");
    assertThat(out).doesNotExist();
  }

  @Test
  void certs_caPassword_keptApartFromTheCaKeys() throws Exception {
    Path out = dir.resolve("fleet");
    Run apart = certs("--out", out.toString(), "--agent", "a1");
    Run inside = run("--out", dir.resolve("other").toString(), "--agent", "a1", "--ca-password-file",
        dir.resolve("other/ca/pw").toString());
    Run none = run("--out", dir.resolve("third").toString(), "--agent", "a1");

    assertThat(apart.exit()).as(apart.err()).isZero();
    assertThat(out.resolve("ca/password")).doesNotExist();
    assertThat(Files.getPosixFilePermissions(caPassword()).toString()).isEqualTo("[OWNER_READ, OWNER_WRITE]");
    FleetCa.load(out.resolve("ca"), Files.readString(caPassword()).strip().toCharArray());
    assertThat(inside.exit()).isEqualTo(2);
    assertThat(inside.err()).contains("--ca-password-file").contains("keep the CA's password apart from its keys");
    // No terminal in a test: no prompt, so the command names where the password must come from.
    assertThat(none.exit()).isEqualTo(2);
    assertThat(none.err()).contains("--ca-password-file FILE or BUSLOAD_CA_PASSWORD_FILE");
    assertThat(dir.resolve("other/ca/root.p12")).doesNotExist();
    assertThat(dir.resolve("third/ca/root.p12")).doesNotExist();
  }

  @Test
  void renew_reissuesEveryMember_newKeySameNamesSameCa_wrongPasswordChangesNothing() throws Exception {
    Path out = dir.resolve("fleet");
    assertThat(certs("--out", out.toString(), "--coordinator", "c1@localhost@127.0.0.1", "--agent", "gpu1@10.0.0.5",
        "--days", "2").exit()).isZero();
    X509Certificate before = FleetTls.inDirectory(out.resolve("agent-gpu1")).load("agent").certificate();
    Path wrong = dir.resolve("wrong-password");
    Files.writeString(wrong, "not the password\n");

    Run refused = run("renew", "--out", out.toString(), "--ca-password-file", wrong.toString());
    assertThat(refused.exit()).isNotZero();
    assertThat(refused.err()).contains("root.p12");
    assertThat(FleetTls.inDirectory(out.resolve("agent-gpu1")).load("agent").certificate()).isEqualTo(before);

    Run renewed = run("renew", "--out", out.toString(), "--ca-password-file", caPassword().toString(), "--days", "30");

    assertThat(renewed.exit()).as(renewed.err()).isZero();
    assertThat(renewed.out().lines()).containsExactly(out.resolve("agent-gpu1").toString(),
        out.resolve("coordinator-c1").toString());
    X509Certificate after = FleetTls.inDirectory(out.resolve("agent-gpu1")).load("agent").certificate();
    assertThat(after.getPublicKey()).isNotEqualTo(before.getPublicKey());
    assertThat(after.getSubjectX500Principal()).isEqualTo(before.getSubjectX500Principal());
    assertThat(after.getSubjectAlternativeNames()).containsExactlyElementsOf(before.getSubjectAlternativeNames());
    assertThat(Duration.between(after.getNotBefore().toInstant(), after.getNotAfter().toInstant()))
        .isEqualTo(Duration.ofDays(30));
    after.verify(pem(out.resolve("ca/member-ca.pem")).getPublicKey());
    X509Certificate coordinator = FleetTls.inDirectory(out.resolve("coordinator-c1")).load("coordinator").certificate();
    assertThat(coordinator.getSubjectAlternativeNames()).containsExactly(List.of(2, "c1"), List.of(2, "localhost"),
        List.of(7, "127.0.0.1"));
  }
}
