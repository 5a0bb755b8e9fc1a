package io.busload.protocol.pki;

import io.busload.protocol.cluster.FleetTls;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
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
 * The fleet's certificate authority: a root (EC P-384; CA, key usage keyCertSign and cRLSign, both critical) that
 * signs a coordinator CA and a member CA (the same, path length 0). Members (EC P-256) are named
 * {@code CN=name,OU=role,O=Busload fleet ID}, with their host names and addresses as subject alternative names,
 * extended key usage serverAuth and clientAuth, and key usage digitalSignature and keyAgreement (critical).
 *
 * <p>Coordinators are issued by the coordinator CA and trust the root; everyone else is issued by the member CA and
 * trusts only the coordinator CA. That is what lets TLS itself refuse an agent or a dashboard talking to anything but
 * a coordinator, with no check of ours in the way. Signatures are ECDSA with SHA-384, the strength of the P-384 keys.
 *
 * <p>On disk ({@link #save}, {@link #load}) a CA is {@code DIR/ca/}: {@code root.p12}, {@code coordinator-ca.p12} and
 * {@code member-ca.p12} (each one key entry, alias {@code root}, {@code coordinator-ca}, {@code member-ca}), their
 * certificates as PEM, and {@code fleet-id}. The stores' password is a separate argument, so that the operator decides
 * where it is kept.
 */
public final class FleetCa {
  private static final Duration CA_VALIDITY = Duration.ofDays(3650);
  /** {@code ./busload certs}' default {@code --days}. */
  public static final Duration MEMBER_VALIDITY = Duration.ofDays(730);
  private static final String SIGNATURE = "SHA384withECDSA";
  static final String ROOT = "root";
  static final String COORDINATOR_CA = "coordinator-ca";
  static final String MEMBER_CA = "member-ca";
  static final String FLEET_ID = "fleet-id";

  private record Authority(KeyPair keys, X509Certificate certificate) {}

  private final SecureRandom random = new SecureRandom();
  private final JcaX509ExtensionUtils extensions;
  private final String fleetId;
  private final Authority root;
  private final Authority coordinatorCa;
  private final Authority memberCa;

  private FleetCa(String fleetId, Authority root, Authority coordinatorCa, Authority memberCa)
      throws GeneralSecurityException {
    this.extensions = new JcaX509ExtensionUtils();
    this.fleetId = fleetId;
    this.root = root;
    this.coordinatorCa = coordinatorCa;
    this.memberCa = memberCa;
  }

  private FleetCa(String fleetId) throws GeneralSecurityException {
    this.extensions = new JcaX509ExtensionUtils();
    this.fleetId = fleetId;
    KeyPair rootKeys = keys("secp384r1");
    X500Principal rootName = new X500Principal("CN=Busload fleet root CA " + fleetId + ",O=Busload fleet " + fleetId);
    this.root = new Authority(rootKeys, sign(rootName, rootKeys.getPublic(), rootName, rootKeys, null, CA_VALIDITY,
        ca(-1)));
    this.coordinatorCa = subCa("coordinator");
    this.memberCa = subCa("member");
  }

  /** A new fleet: a random fleet id (12 hex digits), its root and both CAs, in memory. */
  public static FleetCa create() {
    byte[] id = new byte[6];
    new SecureRandom().nextBytes(id);
    try {
      return new FleetCa(HexFormat.of().formatHex(id));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot make a fleet CA: " + e.getMessage(), e);
    }
  }

  /**
   * Writes this CA into {@code caDir} (created owner-only), every store under {@code password}. The keys are the
   * fleet's: whoever holds them can admit members.
   */
  public void save(Path caDir, char[] password) throws IOException {
    OwnerOnly.directory(caDir);
    OwnerOnly.write(caDir.resolve(FLEET_ID), (fleetId + "\n").getBytes(StandardCharsets.US_ASCII));
    saveAuthority(caDir, ROOT, root, List.of(root.certificate()), password);
    saveAuthority(caDir, COORDINATOR_CA, coordinatorCa, List.of(coordinatorCa.certificate(), root.certificate()),
        password);
    saveAuthority(caDir, MEMBER_CA, memberCa, List.of(memberCa.certificate(), root.certificate()), password);
  }

  /**
   * The CA that {@link #save} wrote into {@code caDir}.
   *
   * @throws IOException naming the file that is missing or that {@code password} does not open
   */
  public static FleetCa load(Path caDir, char[] password) throws IOException {
    String fleetId = Files.readString(caDir.resolve(FLEET_ID), StandardCharsets.US_ASCII).strip();
    try {
      return new FleetCa(fleetId, loadAuthority(caDir, ROOT, password), loadAuthority(caDir, COORDINATOR_CA, password),
          loadAuthority(caDir, MEMBER_CA, password));
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot read the fleet CA in " + caDir + ": " + e.getMessage(), e);
    }
  }

  /**
   * The member CA alone, from {@code member-ca.p12} and {@code coordinator-ca.pem} in {@code caDir} (with
   * {@code fleet-id}): what a coordinator that issues Slurm jobs' agent certificates holds. It issues agents and
   * dashboards; without the root's key or the coordinator CA's it can admit no coordinator and make no new CA.
   *
   * @throws IOException naming the file that is missing or that {@code password} does not open
   */
  public static FleetCa loadMemberIssuer(Path caDir, char[] password) throws IOException {
    String fleetId = Files.readString(caDir.resolve(FLEET_ID), StandardCharsets.US_ASCII).strip();
    Path coordinatorPem = caDir.resolve(COORDINATOR_CA + ".pem");
    try {
      Authority member = loadAuthority(caDir, MEMBER_CA, password);
      KeyStore store = KeyStore.getInstance("PKCS12");
      try (InputStream in = Files.newInputStream(caDir.resolve(MEMBER_CA + ".p12"))) {
        store.load(in, password);
      }
      Certificate[] chain = store.getCertificateChain(MEMBER_CA);
      if (chain == null || chain.length < 2 || !(chain[chain.length - 1] instanceof X509Certificate rootCertificate)) {
        throw new IOException(caDir.resolve(MEMBER_CA + ".p12") + ": no chain up to the fleet's root");
      }
      X509Certificate coordinatorCertificate;
      try (InputStream in = Files.newInputStream(coordinatorPem)) {
        coordinatorCertificate = (X509Certificate) java.security.cert.CertificateFactory.getInstance("X.509")
            .generateCertificate(in);
      }
      return new FleetCa(fleetId, new Authority(new KeyPair(rootCertificate.getPublicKey(), null), rootCertificate),
          new Authority(new KeyPair(coordinatorCertificate.getPublicKey(), null), coordinatorCertificate), member);
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot read the member CA in " + caDir + " (" + coordinatorPem.getFileName() + ", "
          + MEMBER_CA + ".p12): " + e.getMessage(), e);
    }
  }

  private static void saveAuthority(Path caDir, String alias, Authority authority, List<X509Certificate> chain,
      char[] password) throws IOException {
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      store.setKeyEntry(alias, authority.keys().getPrivate(), password, chain.toArray(Certificate[]::new));
      OwnerOnly.store(store, caDir.resolve(alias + ".p12"), password);
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot write " + caDir.resolve(alias + ".p12") + ": " + e.getMessage(), e);
    }
    OwnerOnly.write(caDir.resolve(alias + ".pem"), pem("CERTIFICATE", encoded(authority.certificate()))
        .getBytes(StandardCharsets.US_ASCII));
  }

  private static Authority loadAuthority(Path caDir, String alias, char[] password)
      throws IOException, GeneralSecurityException {
    Path file = caDir.resolve(alias + ".p12");
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(file)) {
      store.load(in, password);
    } catch (IOException e) {
      throw new IOException(file + ": cannot open it with the CA's password (" + e.getMessage() + ")", e);
    }
    if (!(store.getKey(alias, password) instanceof PrivateKey key)
        || !(store.getCertificate(alias) instanceof X509Certificate certificate)) {
      throw new IOException(file + ": no key entry '" + alias + "'");
    }
    return new Authority(new KeyPair(certificate.getPublicKey(), key), certificate);
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

  /** {@link #issue(String, String, List, Duration)} valid for {@link #MEMBER_VALIDITY}. */
  public Member issue(String role, String name, List<String> hosts) {
    return issue(role, name, hosts, MEMBER_VALIDITY);
  }

  /**
   * Issues a member of {@code role} ({@code coordinator}, {@code agent} or {@code dashboard}) named {@code name}.
   *
   * @param hosts further subject alternative names beside {@code name}: addresses (digits and dots, or with a colon)
   *     become IP entries, anything else DNS entries
   */
  public Member issue(String role, String name, List<String> hosts, Duration validity) {
    boolean coordinator = "coordinator".equals(role);
    Authority issuer = coordinator ? coordinatorCa : memberCa;
    if (issuer.keys().getPrivate() == null) {
      throw new IllegalStateException("cannot issue a " + role + " certificate for '" + name + "': this CA holds"
          + " the member CA's key only");
    }
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
          issuer.keys(), issuer.certificate().getPublicKey(), validity, builder -> {
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
      throw new IllegalStateException("cannot issue a " + role + " certificate for '" + name + "': "
          + e.getMessage(), e);
    }
  }

  /**
   * Writes {@code member} as {@code out/ROLE-NAME/}, owner-only: {@code member.p12} (alias {@code member}: key and
   * chain), {@code trust.p12} (what the member trusts) and {@code password} (of both), which {@code BUSLOAD_TLS_DIR}
   * names. Files already there are replaced. Returns that directory.
   */
  public static Path write(Member member, Path out) throws IOException {
    Path dir = out.resolve(member.role() + "-" + member.name());
    OwnerOnly.directory(dir);
    char[] password = OwnerOnly.newPassword();
    try {
      KeyStore keys = KeyStore.getInstance("PKCS12");
      keys.load(null, null);
      keys.setKeyEntry("member", member.key(), password, member.chain().toArray(Certificate[]::new));
      KeyStore trust = KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      trust.setCertificateEntry("coordinator".equals(member.role()) ? ROOT : COORDINATOR_CA, member.trusted());
      // The stores first, under names the loader does not read, then moved over the old ones: a member that
      // reloads while this runs sees the old three files or the new three, not a mix.
      Path keyStore = dir.resolve(FleetTls.KEY_STORE + ".new");
      Path trustStore = dir.resolve(FleetTls.TRUST_STORE + ".new");
      Path passwordFile = dir.resolve(FleetTls.PASSWORD_FILE + ".new");
      OwnerOnly.store(keys, keyStore, password);
      OwnerOnly.store(trust, trustStore, password);
      OwnerOnly.write(passwordFile, (new String(password) + "\n").getBytes(StandardCharsets.US_ASCII));
      OwnerOnly.replace(passwordFile, dir.resolve(FleetTls.PASSWORD_FILE));
      OwnerOnly.replace(keyStore, dir.resolve(FleetTls.KEY_STORE));
      OwnerOnly.replace(trustStore, dir.resolve(FleetTls.TRUST_STORE));
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot write the key stores of " + dir + ": " + e.getMessage(), e);
    }
    return dir;
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
   * Signs {@code subjectKey} as {@code subject}, by {@code issuerKeys} ({@code issuerPublic} null: self-signed, with
   * no authority key identifier).
   */
  private X509Certificate sign(X500Principal subject, PublicKey subjectKey, X500Principal issuer, KeyPair issuerKeys,
      PublicKey issuerPublic, Duration validity, Extensions own) throws GeneralSecurityException {
    Instant now = Instant.now();
    // Positive, and random so that two CAs' certificates never share a serial.
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
    } catch (CertificateEncodingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN " + type + "-----\n"
        + java.util.Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
        + "\n-----END " + type + "-----\n";
  }
}
