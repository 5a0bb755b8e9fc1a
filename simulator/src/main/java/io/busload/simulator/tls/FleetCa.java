package io.busload.simulator.tls;

import io.busload.protocol.cluster.FleetTls;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.HexFormat;
import java.util.List;
import javax.security.auth.x500.X500Principal;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A throw-away fleet CA in memory, shaped as {@code ./busload certs} shapes one (its {@code issue_ca} and
 * {@code issue_member}): a root (EC P-384, CA, key usage keyCertSign and cRLSign, both critical) that signs a
 * coordinator CA and a member CA (the same, path length 0); members (EC P-256) named {@code CN=name,OU=role,O=Busload
 * fleet ID}, with the host names and addresses as subject alternative names, extended key usage serverAuth and
 * clientAuth, and key usage digitalSignature and keyAgreement (critical). Coordinators are issued by the coordinator
 * CA and trust the root; everyone else is issued by the member CA and trusts only the coordinator CA, which is what
 * lets TLS itself refuse an agent talking to anything but a coordinator. Every certificate carries the subject and
 * authority key identifiers keytool adds. Signatures are ECDSA with SHA-384, as keytool signs with a P-384 key.
 *
 * <p>BouncyCastle builds the certificates; the JDK makes the keys and the PKCS12 files. Nothing here is for a real
 * fleet: the CA's key never leaves memory, and {@code ./busload certs} stays the way operators issue.
 */
public final class FleetCa {
  private static final Duration CA_VALIDITY = Duration.ofDays(3650);
  /** {@code ./busload certs}' default {@code --days}. */
  public static final Duration MEMBER_VALIDITY = Duration.ofDays(730);
  private static final String SIGNATURE = "SHA384withECDSA";

  private record Authority(KeyPair keys, X509Certificate certificate) {}

  private final SecureRandom random = new SecureRandom();
  private final JcaX509ExtensionUtils extensions;
  private final String fleetId;
  private final Authority root;
  private final Authority coordinatorCa;
  private final Authority memberCa;

  private FleetCa(String fleetId) throws GeneralSecurityException {
    this.fleetId = fleetId;
    this.extensions = new JcaX509ExtensionUtils();
    KeyPair rootKeys = keys("secp384r1");
    X500Principal rootName = new X500Principal("CN=Busload fleet root CA " + fleetId + ",O=Busload fleet " + fleetId);
    this.root = new Authority(rootKeys, sign(rootName, rootKeys.getPublic(), rootName, rootKeys, null, CA_VALIDITY,
        ca(-1)));
    this.coordinatorCa = subCa("coordinator");
    this.memberCa = subCa("member");
  }

  /** A new fleet: a random fleet id (12 hex digits, as {@code ./busload certs}), its root and both CAs. */
  public static FleetCa create() {
    byte[] id = new byte[6];
    new SecureRandom().nextBytes(id);
    try {
      return new FleetCa(HexFormat.of().formatHex(id));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot make the simulated fleet CA: " + e.getMessage(), e);
    }
  }

  public String fleetId() {
    return fleetId;
  }

  public X509Certificate root() {
    return root.certificate();
  }

  public X509Certificate coordinatorCa() {
    return coordinatorCa.certificate();
  }

  public X509Certificate memberCa() {
    return memberCa.certificate();
  }

  /**
   * A member's key and certificate, with the chain up to the root and the one CA certificate it trusts.
   *
   * @param chain this member's certificate first, then its CA, then the root
   */
  public record Member(String role, String name, PrivateKey key, List<X509Certificate> chain,
      X509Certificate trusted) {
    public X509Certificate certificate() {
      return chain.getFirst();
    }

    /** Key and chain as PEM values, for a Vert.x client or server without any file. */
    public PemKeyCertOptions keyCertOptions() {
      StringBuilder certificates = new StringBuilder();
      chain.forEach(c -> certificates.append(pem("CERTIFICATE", encoded(c))));
      return new PemKeyCertOptions().addKeyValue(Buffer.buffer(pem("PRIVATE KEY", key.getEncoded())))
          .addCertValue(Buffer.buffer(certificates.toString()));
    }

    /** The CA this member trusts, as a PEM value. */
    public PemTrustOptions trustOptions() {
      return new PemTrustOptions().addCertValue(Buffer.buffer(pem("CERTIFICATE", encoded(trusted))));
    }
  }

  /**
   * Issues a member of {@code role} ({@code coordinator}, {@code agent} or {@code dashboard}) named {@code name},
   * valid for {@link #MEMBER_VALIDITY}.
   *
   * @param hosts further subject alternative names beside {@code name}: addresses (digits and dots, or with a colon)
   *     become IP entries, anything else DNS entries, as in {@code ./busload certs}
   */
  public Member issue(String role, String name, List<String> hosts) {
    boolean coordinator = "coordinator".equals(role);
    Authority issuer = coordinator ? coordinatorCa : memberCa;
    List<GeneralName> san = new ArrayList<>();
    List<String> all = new ArrayList<>(List.of(name));
    all.addAll(hosts);
    for (String host : all) {
      san.add(host.matches("[0-9.]+") || host.contains(":") ? new GeneralName(GeneralName.iPAddress, host)
          : new GeneralName(GeneralName.dNSName, host));
    }
    try {
      KeyPair keys = keys("secp256r1");
      X500Principal subject = new X500Principal("CN=" + name + ",OU=" + role + ",O=Busload fleet " + fleetId);
      X509Certificate certificate = sign(subject, keys.getPublic(), issuer.certificate().getSubjectX500Principal(),
          issuer.keys(), issuer.certificate().getPublicKey(), MEMBER_VALIDITY, builder -> {
            builder.addExtension(Extension.subjectAlternativeName, false,
                new GeneralNames(san.toArray(GeneralName[]::new)));
            builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(
                new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}));
            builder.addExtension(Extension.keyUsage, true,
                new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyAgreement));
          });
      return new Member(role, name, keys.getPrivate(), List.of(certificate, issuer.certificate(), root.certificate()),
          coordinator ? root.certificate() : coordinatorCa.certificate());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot issue a simulated " + role + " certificate for '" + name + "': "
          + e.getMessage(), e);
    }
  }

  /**
   * Writes {@code member} as {@code ./busload certs} does: {@code out/ROLE-NAME/} holding {@code member.p12} (alias
   * {@code member}: key and chain), {@code trust.p12} and {@code password} (owner only), which
   * {@code BUSLOAD_TLS_DIR} names. Returns that directory.
   */
  public static Path write(Member member, Path out) throws IOException {
    Path dir = out.resolve(member.role() + "-" + member.name());
    Files.createDirectories(dir);
    byte[] secret = new byte[32];
    new SecureRandom().nextBytes(secret);
    String password = Base64.getEncoder().encodeToString(secret).replaceAll("[/+=]", "");
    Path passwordFile = dir.resolve(FleetTls.PASSWORD_FILE);
    Files.deleteIfExists(passwordFile);
    Files.createFile(passwordFile, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(passwordFile, password + "\n", StandardCharsets.UTF_8);
    try {
      KeyStore keys = KeyStore.getInstance("PKCS12");
      keys.load(null, null);
      keys.setKeyEntry("member", member.key(), password.toCharArray(), member.chain().toArray(Certificate[]::new));
      store(keys, dir.resolve(FleetTls.KEY_STORE), password);
      KeyStore trust = KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      trust.setCertificateEntry("coordinator".equals(member.role()) ? "root" : "coordinator-ca", member.trusted());
      store(trust, dir.resolve(FleetTls.TRUST_STORE), password);
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot write the key stores of " + dir + ": " + e.getMessage(), e);
    }
    return dir;
  }

  private static void store(KeyStore store, Path file, String password) throws IOException, GeneralSecurityException {
    try (OutputStream out = Files.newOutputStream(file)) {
      store.store(out, password.toCharArray());
    }
  }

  private Authority subCa(String kind) throws GeneralSecurityException {
    KeyPair keys = keys("secp384r1");
    X500Principal name = new X500Principal("CN=Busload " + kind + " CA " + fleetId + ",O=Busload fleet " + fleetId);
    return new Authority(keys, sign(name, keys.getPublic(), root.certificate().getSubjectX500Principal(),
        root.keys(), root.certificate().getPublicKey(), CA_VALIDITY, ca(0)));
  }

  /** A CA's extensions; {@code pathLength} -1 for none. */
  private static Extensions ca(int pathLength) {
    return builder -> {
      builder.addExtension(Extension.basicConstraints, true,
          pathLength < 0 ? new BasicConstraints(true) : new BasicConstraints(pathLength));
      builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
    };
  }

  private interface Extensions {
    void add(X509v3CertificateBuilder builder) throws IOException;
  }

  /**
   * Signs {@code subjectKey} as {@code subject}, by {@code issuerKeys} ({@code issuerPublic} null: self-signed, and
   * no authority key identifier, as keytool's root has none).
   */
  private X509Certificate sign(X500Principal subject, PublicKey subjectKey, X500Principal issuer, KeyPair issuerKeys,
      PublicKey issuerPublic, Duration validity, Extensions own) throws GeneralSecurityException {
    Instant now = Instant.now();
    // Positive and 63 bits, as keytool's serial numbers.
    BigInteger serial = new BigInteger(63, random);
    X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(X500Name.getInstance(issuer.getEncoded()),
        serial, Date.from(now), Date.from(now.plus(validity)), X500Name.getInstance(subject.getEncoded()), subjectKey);
    try {
      builder.addExtension(Extension.subjectKeyIdentifier, false, extensions.createSubjectKeyIdentifier(subjectKey));
      if (issuerPublic != null) {
        builder.addExtension(Extension.authorityKeyIdentifier, false,
            extensions.createAuthorityKeyIdentifier(issuerPublic));
      }
      own.add(builder);
      ContentSigner signer = new JcaContentSignerBuilder(SIGNATURE).build(issuerKeys.getPrivate());
      return new JcaX509CertificateConverter().getCertificate(builder.build(signer));
    } catch (IOException | OperatorCreationException e) {
      throw new GeneralSecurityException("cannot build the certificate of " + subject + ": " + e.getMessage(), e);
    }
  }

  private KeyPair keys(String curve) throws GeneralSecurityException {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec(curve), random);
    return generator.generateKeyPair();
  }

  private static byte[] encoded(X509Certificate certificate) {
    try {
      return certificate.getEncoded();
    } catch (java.security.cert.CertificateEncodingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN " + type + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
        + "\n-----END " + type + "-----\n";
  }
}
