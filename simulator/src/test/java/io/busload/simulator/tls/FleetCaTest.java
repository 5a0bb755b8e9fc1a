package io.busload.simulator.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.busload.protocol.cluster.FleetTls;
import io.busload.testsupport.FleetCerts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPublicKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The simulator's in-process fleet CA against the real {@code ./busload certs} (keytool): every certificate of the
 * chain has the same shape (names, curves, signature, extensions and their criticality, key usages, validity), and
 * the member directories it writes are taken by {@code FleetTls} for their role and no other.
 */
class FleetCaTest {
  @TempDir static Path dir;
  private static Path keytool;
  private static String keytoolFleet;
  private static FleetCa ca;

  @BeforeAll
  static void issueBoth() throws Exception {
    keytool = FleetCerts.issue(dir.resolve("keytool"), "--coordinator", "c1@localhost@127.0.0.1", "--agent",
        "sim-0000");
    keytoolFleet = Files.readString(keytool.resolve("ca/fleet-id")).strip();
    ca = FleetCa.create();
  }

  /** What must match between two issuers: everything but keys, serials, dates and the fleet id. */
  record Shape(int version, String signature, String keyAlgorithm, int keyBits, String subject, String issuer,
      Set<String> critical, Set<String> nonCritical, String keyUsage, int basicConstraints,
      List<String> extendedKeyUsage, List<String> alternativeNames, long validDays) {}

  static Shape shape(X509Certificate c, String fleetId) throws Exception {
    Collection<List<?>> san = c.getSubjectAlternativeNames();
    List<String> names = new ArrayList<>();
    if (san != null) {
      san.forEach(entry -> names.add(entry.get(0) + ":" + entry.get(1)));
    }
    return new Shape(c.getVersion(), c.getSigAlgName(), c.getPublicKey().getAlgorithm(),
        ((ECPublicKey) c.getPublicKey()).getParams().getCurve().getField().getFieldSize(),
        c.getSubjectX500Principal().getName().replace(fleetId, "ID"),
        c.getIssuerX500Principal().getName().replace(fleetId, "ID"),
        new TreeSet<>(c.getCriticalExtensionOIDs()), new TreeSet<>(c.getNonCriticalExtensionOIDs()),
        Arrays.toString(c.getKeyUsage()), c.getBasicConstraints(), c.getExtendedKeyUsage(), names,
        Duration.between(c.getNotBefore().toInstant(), c.getNotAfter().toInstant()).toDays());
  }

  private static X509Certificate pem(Path file) throws Exception {
    try (var in = Files.newInputStream(file)) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }

  @Test
  void authorities_sameShapeAsBusloadCerts() throws Exception {
    assertThat(shape(ca.root(), ca.fleetId())).isEqualTo(shape(pem(keytool.resolve("ca/root.pem")), keytoolFleet));
    assertThat(shape(ca.coordinatorCa(), ca.fleetId()))
        .isEqualTo(shape(pem(keytool.resolve("ca/coordinator-ca.pem")), keytoolFleet));
    assertThat(shape(ca.memberCa(), ca.fleetId()))
        .isEqualTo(shape(pem(keytool.resolve("ca/member-ca.pem")), keytoolFleet));
  }

  @Test
  void members_sameShapeAsBusloadCerts_andTheirDirectoriesLoadForTheirRoleOnly() throws Exception {
    Path out = dir.resolve("in-process");
    Path coordinatorDir = FleetCa.write(ca.issue("coordinator", "c1", List.of("localhost", "127.0.0.1")), out);
    Path agentDir = FleetCa.write(ca.issue("agent", "sim-0000", List.of()), out);
    assertThat(coordinatorDir).isEqualTo(out.resolve("coordinator-c1"));

    for (String member : List.of("coordinator-c1", "agent-sim-0000")) {
      String role = member.substring(0, member.indexOf('-'));
      FleetTls.Loaded mine = FleetTls.inDirectory(out.resolve(member)).load(role);
      FleetTls.Loaded theirs = FleetTls.inDirectory(keytool.resolve(member)).load(role);
      assertThat(shape(mine.certificate(), ca.fleetId())).as(member)
          .isEqualTo(shape(theirs.certificate(), keytoolFleet));
    }
    assertThat(FleetTls.nameOf(FleetTls.inDirectory(agentDir).load("agent").certificate())).isEqualTo("sim-0000");
    assertThatThrownBy(() -> FleetTls.inDirectory(agentDir).load("coordinator"))
        .hasMessageContaining("was issued for role 'agent'");
    assertThat(Files.getPosixFilePermissions(agentDir.resolve(FleetTls.PASSWORD_FILE)).toString())
        .isEqualTo("[OWNER_READ, OWNER_WRITE]");
  }

  @Test
  void issue_chainsAndTrust_asCertsIssuesThem() throws Exception {
    FleetCa.Member coordinator = ca.issue("coordinator", "c1", List.of("127.0.0.1"));
    FleetCa.Member agent = ca.issue("agent", "sim-0001", List.of());

    // Each certificate is signed by the next one up; coordinators trust the root, agents only the coordinator CA.
    for (FleetCa.Member member : List.of(coordinator, agent)) {
      List<X509Certificate> chain = member.chain();
      for (int i = 0; i < chain.size() - 1; i++) {
        chain.get(i).verify(chain.get(i + 1).getPublicKey());
      }
      chain.getLast().verify(chain.getLast().getPublicKey());
      assertThat(chain.getLast()).isEqualTo(ca.root());
    }
    assertThat(coordinator.chain().get(1)).isEqualTo(ca.coordinatorCa());
    assertThat(coordinator.trusted()).isEqualTo(ca.root());
    assertThat(agent.chain().get(1)).isEqualTo(ca.memberCa());
    assertThat(agent.trusted()).isEqualTo(ca.coordinatorCa());
    // Another fleet's CA signed nothing here.
    FleetCa stranger = FleetCa.create();
    assertThatThrownBy(() -> agent.certificate().verify(stranger.memberCa().getPublicKey()))
        .isInstanceOf(java.security.SignatureException.class);
  }
}
