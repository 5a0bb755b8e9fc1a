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
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code ./busload certs}' command line: what it writes for each role, and how it refuses bad options. */
class CertsCommandTest {
  @TempDir Path dir;

  record Run(int exit, String out, String err) {}

  private static Run certs(String... args) {
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
}
