package io.busload.protocol.pki;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.busload.protocol.cluster.FleetTls;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SignatureException;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPublicKey;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fleet CA's certificates: their shape (curves, signature, CA constraints, critical key usages), who signs whom,
 * who trusts whom, and the member directories {@code FleetTls} loads for their role and no other.
 */
class FleetCaTest {
  @TempDir static Path dir;
  private static FleetCa ca;

  @BeforeAll
  static void create() {
    ca = FleetCa.create();
  }

  private static int curveBits(X509Certificate c) {
    return ((ECPublicKey) c.getPublicKey()).getParams().getCurve().getField().getFieldSize();
  }

  @Test
  void authorities_areP384CasWithCriticalConstraints_subCasLimitedToPathLengthZero() {
    for (X509Certificate authority : List.of(ca.root(), ca.coordinatorCa(), ca.memberCa())) {
      assertThat(curveBits(authority)).isEqualTo(384);
      assertThat(authority.getSigAlgName()).isEqualTo("SHA384withECDSA");
      assertThat(authority.getCriticalExtensionOIDs()).contains("2.5.29.19", "2.5.29.15");
      assertThat(authority.getKeyUsage()[5]).as("keyCertSign").isTrue();
      assertThat(authority.getSubjectX500Principal().getName()).contains("O=Busload fleet " + ca.fleetId());
    }
    assertThat(ca.root().getBasicConstraints()).isEqualTo(Integer.MAX_VALUE);
    assertThat(ca.coordinatorCa().getBasicConstraints()).isZero();
    assertThat(ca.memberCa().getBasicConstraints()).isZero();
  }

  @Test
  void issue_memberCertificate_namesRoleAndHosts_forServerAndClient() throws Exception {
    X509Certificate agent = ca.issue("agent", "gpu1", List.of("gpu1.lab", "10.0.0.5"), Duration.ofDays(3))
        .certificate();
    assertThat(curveBits(agent)).isEqualTo(256);
    assertThat(agent.getSubjectX500Principal().getName())
        .isEqualTo("CN=gpu1,OU=agent,O=Busload fleet " + ca.fleetId());
    assertThat(agent.getSubjectAlternativeNames()).containsExactly(List.of(2, "gpu1"), List.of(2, "gpu1.lab"),
        List.of(7, "10.0.0.5"));
    assertThat(agent.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2");
    assertThat(agent.getCriticalExtensionOIDs()).containsExactly("2.5.29.15");
    assertThat(Duration.between(agent.getNotBefore().toInstant(), agent.getNotAfter().toInstant()))
        .isEqualTo(Duration.ofDays(3));
  }

  @Test
  void loadMemberIssuer_memberCaFilesAlone_issuesAgentsSignedByIt_refusesCoordinators() throws Exception {
    Path saved = dir.resolve("issuer-ca");
    ca.save(saved, "secret".toCharArray());
    Path issuerDir = Files.createDirectories(dir.resolve("issuer-only"));
    for (String file : List.of("fleet-id", "member-ca.p12", "coordinator-ca.pem")) {
      Files.copy(saved.resolve(file), issuerDir.resolve(file));
    }

    FleetCa issuer = FleetCa.loadMemberIssuer(issuerDir, "secret".toCharArray());
    FleetCa.Member agent = issuer.issue("agent", "node7", List.of(), Duration.ofMinutes(75));

    agent.certificate().verify(ca.memberCa().getPublicKey());
    assertThat(agent.chain()).containsExactly(agent.certificate(), ca.memberCa(), ca.root());
    assertThat(agent.trusted()).isEqualTo(ca.coordinatorCa());
    assertThat(FleetTls.nameOf(FleetTls.inDirectory(FleetCa.write(agent, dir.resolve("issued"))).load("agent")
        .certificate())).isEqualTo("node7");
    assertThatThrownBy(() -> issuer.issue("coordinator", "c9", List.of()))
        .hasMessageContaining("holds the member CA's key only");
    assertThatThrownBy(() -> FleetCa.loadMemberIssuer(issuerDir, "wrong".toCharArray()))
        .hasMessageContaining("member-ca.p12");
  }

  @Test
  void write_memberDirectories_loadForTheirRoleOnly_ownerOnly() throws Exception {
    Path out = dir.resolve("members");
    Path coordinatorDir = FleetCa.write(ca.issue("coordinator", "c1", List.of("localhost", "127.0.0.1")), out);
    Path agentDir = FleetCa.write(ca.issue("agent", "sim-0000", List.of()), out);
    assertThat(coordinatorDir).isEqualTo(out.resolve("coordinator-c1"));

    assertThat(FleetTls.nameOf(FleetTls.inDirectory(coordinatorDir).load("coordinator").certificate()))
        .isEqualTo("c1");
    assertThat(FleetTls.nameOf(FleetTls.inDirectory(agentDir).load("agent").certificate())).isEqualTo("sim-0000");
    assertThatThrownBy(() -> FleetTls.inDirectory(agentDir).load("coordinator"))
        .hasMessageContaining("was issued for role 'agent'");
    assertThat(Files.getPosixFilePermissions(agentDir.resolve(FleetTls.PASSWORD_FILE)).toString())
        .isEqualTo("[OWNER_READ, OWNER_WRITE]");
    assertThat(Files.getPosixFilePermissions(agentDir).toString())
        .isEqualTo("[OWNER_READ, OWNER_WRITE, OWNER_EXECUTE]");
  }

  @Test
  void issue_chainsAndTrust_coordinatorsTrustTheRoot_othersOnlyTheCoordinatorCa() throws Exception {
    FleetCa.Member coordinator = ca.issue("coordinator", "c1", List.of("127.0.0.1"));
    FleetCa.Member agent = ca.issue("agent", "sim-0001", List.of());

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
    FleetCa stranger = FleetCa.create();
    assertThatThrownBy(() -> agent.certificate().verify(stranger.memberCa().getPublicKey()))
        .isInstanceOf(SignatureException.class);
  }

  @Test
  void saveThenLoad_sameAuthorities_wrongPasswordNamesTheFile() throws Exception {
    Path caDir = dir.resolve("saved/ca");
    char[] password = "correct horse".toCharArray();
    ca.save(caDir, password);

    FleetCa loaded = FleetCa.load(caDir, password);
    assertThat(loaded.fleetId()).isEqualTo(ca.fleetId());
    assertThat(loaded.root()).isEqualTo(ca.root());
    assertThat(loaded.memberCa()).isEqualTo(ca.memberCa());
    loaded.issue("agent", "a9", List.of()).certificate().verify(ca.memberCa().getPublicKey());
    assertThat(Files.getPosixFilePermissions(caDir.resolve("root.p12")).toString())
        .isEqualTo("[OWNER_READ, OWNER_WRITE]");
    assertThatThrownBy(() -> FleetCa.load(caDir, "wrong".toCharArray())).hasMessageContaining("root.p12");
  }
}
