package io.busload.protocol.cluster;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.EventBusOptions;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.net.PfxOptions;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;

/**
 * A member's fleet certificate for the event bus, as {@code ./busload certs} writes it: the
 * member's key and certificate chain ({@code member.p12}), the CA certificate it trusts ({@code trust.p12}), and a
 * file holding the password of both.
 *
 * <p>Only paths are held, so printing a settings record can never show the password; it is read when the event
 * bus starts and handed to Vert.x, nowhere else. The role a certificate was issued for is its subject's OU: a
 * member refuses to start with a certificate for another role, because TLS would refuse it later anyway (agents
 * trust only the coordinator CA) and a clear message at start beats handshake failures on every send.
 *
 * @param keyStore PKCS12 with exactly one key entry: this member's key and its chain up to the fleet root
 * @param trustStore PKCS12 of trusted CA certificates: the root for coordinators, the coordinator CA for others
 * @param passwordFile one line, the password of both stores
 */
public record FleetTls(Path keyStore, Path trustStore, Path passwordFile) {
  public static final String KEY_STORE = "member.p12";
  public static final String TRUST_STORE = "trust.p12";
  public static final String PASSWORD_FILE = "password";

  public FleetTls {
    Objects.requireNonNull(keyStore, "keyStore");
    Objects.requireNonNull(trustStore, "trustStore");
    Objects.requireNonNull(passwordFile, "passwordFile");
  }

  /** A member directory written by {@code ./busload certs} ({@code DIR/ROLE-NAME/}). */
  public static FleetTls inDirectory(Path dir) {
    return new FleetTls(dir.resolve(KEY_STORE), dir.resolve(TRUST_STORE), dir.resolve(PASSWORD_FILE));
  }

  /**
   * Reads and checks both stores: the password opens them, the key store holds one key whose certificate is
   * valid now and was issued for {@code role}, the trust store holds at least one CA. Blocking file IO.
   *
   * @throws IllegalStateException naming the file and what is wrong with it, never the password
   */
  public Loaded load(String role) {
    String password = password();
    byte[] keyBytes = read(keyStore, "key store");
    byte[] trustBytes = read(trustStore, "trust store");
    KeyStore keys = open(keyBytes, keyStore, password);
    KeyStore trusted = open(trustBytes, trustStore, password);
    try {
      List<String> keyAliases = Collections.list(keys.aliases()).stream().filter(a -> isKey(keys, a)).toList();
      if (keyAliases.size() != 1) {
        throw new IllegalStateException(keyStore + ": expected one key entry, found " + keyAliases.size());
      }
      Certificate[] chain = keys.getCertificateChain(keyAliases.getFirst());
      if (chain == null || chain.length == 0 || !(chain[0] instanceof X509Certificate certificate)) {
        throw new IllegalStateException(keyStore + ": the key entry has no X.509 certificate chain");
      }
      try {
        certificate.checkValidity();
      } catch (CertificateExpiredException | CertificateNotYetValidException e) {
        throw new IllegalStateException(keyStore + ": certificate " + certificate.getSubjectX500Principal()
            + " is not valid now (valid " + certificate.getNotBefore().toInstant() + " to "
            + certificate.getNotAfter().toInstant() + "); issue a new one with ./busload certs");
      }
      String certified = roleOf(certificate);
      if (!Objects.equals(certified, role)) {
        throw new IllegalStateException(keyStore + ": certificate " + certificate.getSubjectX500Principal()
            + " was issued for role '" + certified + "', but this member's role is '" + role
            + "' (./busload certs --" + role + " HOST issues one)");
      }
      long anchors = Collections.list(trusted.aliases()).stream().filter(a -> isTrusted(trusted, a)).count();
      if (anchors == 0) {
        throw new IllegalStateException(trustStore + ": no trusted certificate in it");
      }
      List<X509Certificate> all = new java.util.ArrayList<>();
      for (Certificate c : chain) {
        all.add((X509Certificate) c);
      }
      for (String alias : Collections.list(trusted.aliases())) {
        if (trusted.getCertificate(alias) instanceof X509Certificate c) {
          all.add(c);
        }
      }
      return new Loaded(keyBytes, trustBytes, password, certificate, all);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(keyStore + ": " + e.getMessage(), e);
    }
  }

  /** The role a fleet certificate was issued for: the OU of its subject, or null when it has none. */
  public static String roleOf(X509Certificate certificate) {
    return subject(certificate, "OU");
  }

  /** The name a fleet certificate was issued to (its subject's CN: the host, for an agent), or null. */
  public static String nameOf(X509Certificate certificate) {
    return subject(certificate, "CN");
  }

  private static String subject(X509Certificate certificate, String type) {
    try {
      for (Rdn rdn : new LdapName(certificate.getSubjectX500Principal().getName()).getRdns()) {
        if (type.equalsIgnoreCase(rdn.getType())) {
          return String.valueOf(rdn.getValue());
        }
      }
      return null;
    } catch (InvalidNameException e) {
      return null;
    }
  }

  /**
   * Checked stores, ready for Vert.x. Holds the password: deliberately not a record, so that its
   * {@code toString} cannot print it.
   */
  public static final class Loaded {
    private final byte[] keyStore;
    private final byte[] trustStore;
    private final String password;
    private final X509Certificate certificate;
    private final List<X509Certificate> certificates;

    private Loaded(byte[] keyStore, byte[] trustStore, String password, X509Certificate certificate,
        List<X509Certificate> certificates) {
      this.keyStore = keyStore;
      this.trustStore = trustStore;
      this.password = password;
      this.certificate = certificate;
      this.certificates = List.copyOf(certificates);
    }

    public X509Certificate certificate() {
      return certificate;
    }

    /**
     * Every certificate this member depends on: its own chain and the CAs it trusts. The earliest of their expiries
     * is when this member stops working, whichever of them it is.
     */
    public List<X509Certificate> certificates() {
      return certificates;
    }

    /**
     * HTTPS for the coordinator's REST API with this member's key and certificate. Clients are not asked for a
     * certificate (scripts and dashboards authenticate with API tokens); they check the server's chain and host.
     */
    public io.vertx.core.http.HttpServerOptions applyHttps(io.vertx.core.http.HttpServerOptions options) {
      return options.setSsl(true).setKeyCertOptions(keyCert());
    }

    /**
     * The coordinator's event-bus bridge for agents: this member's key, and a client certificate
     * required from every connection, chained to a CA this member trusts. Which agent a connection is comes from
     * that certificate's subject, checked by the bridge on every message.
     */
    public io.vertx.core.http.HttpServerOptions applyBridgeServer(io.vertx.core.http.HttpServerOptions options) {
      return options.setSsl(true)
          .setKeyCertOptions(keyCert())
          .setTrustOptions(trust())
          .setClientAuth(ClientAuth.REQUIRED);
    }

    /**
     * An agent's side of the bridge: its certificate, the CAs it trusts (the coordinator CA only), and the host
     * name checked against the coordinator's certificate, which the cluster's event bus could not do.
     */
    public io.vertx.core.http.WebSocketClientOptions applyBridgeClient(io.vertx.core.http.WebSocketClientOptions options) {
      return bridgeClient(options, keyCert(), trust());
    }

    /**
     * What {@link #applyBridgeServer} sets, as options a running server takes ({@code HttpServer.updateSSLOptions}):
     * new connections get these, open ones keep theirs.
     */
    public io.vertx.core.net.ServerSSLOptions bridgeServerSsl() {
      return mutualServerSsl();
    }

    /**
     * What {@link #applyBridgeClient} sets, as options a running client takes ({@code updateSSLOptions}): the next
     * connection presents the new certificate; the open one is kept. The coordinator's host name stays checked.
     */
    public io.vertx.core.net.ClientSSLOptions bridgeClientSsl() {
      return clientSsl("HTTPS");
    }

    /** What {@link #applyHttps} sets, for a running server. */
    public io.vertx.core.net.ServerSSLOptions httpsSsl() {
      return new io.vertx.core.net.ServerSSLOptions().setKeyCertOptions(keyCert());
    }

    /**
     * TLS on, with the bytes that were checked (not the paths, which could change in between); every peer must
     * present a certificate that chains to a CA in the trust store, in both directions. Vert.x's event-bus
     * client does not check host names, so what a certificate proves is its chain, hence its role, not its host.
     */
    public EventBusOptions apply(EventBusOptions options) {
      return options.setSsl(true)
          .setKeyCertOptions(keyCert())
          .setTrustOptions(trust())
          .setTrustAll(false)
          .setClientAuth(ClientAuth.REQUIRED);
    }

    /**
     * What {@link #apply} sets for the event bus's server, as options a running server takes: members that connect
     * next must present a certificate chained to this trust store, as at start.
     */
    public io.vertx.core.net.ServerSSLOptions eventBusServerSsl() {
      return mutualServerSsl();
    }

    /**
     * What {@link #apply} sets for the event bus's client, as options a running client takes. No host name is
     * checked, as Vert.x's clustered event bus checks none at start (members are reached at the addresses they
     * announce, which no certificate names).
     */
    public io.vertx.core.net.ClientSSLOptions eventBusClientSsl() {
      return clientSsl("");
    }

    /** This member's key and certificate, and a client certificate required from every peer, for a running server. */
    private io.vertx.core.net.ServerSSLOptions mutualServerSsl() {
      return new io.vertx.core.net.ServerSSLOptions().setKeyCertOptions(keyCert()).setTrustOptions(trust())
          .setClientAuth(ClientAuth.REQUIRED);
    }

    /** This member's certificate and trust for a running client; {@code hostCheck} "" checks no host name. */
    private io.vertx.core.net.ClientSSLOptions clientSsl(String hostCheck) {
      return new io.vertx.core.net.ClientSSLOptions().setKeyCertOptions(keyCert()).setTrustOptions(trust())
          .setTrustAll(false).setHostnameVerificationAlgorithm(hostCheck);
    }

    /** Fresh options each time: Vert.x options are mutable, and each server or client keeps the object it is given. */
    private PfxOptions keyCert() {
      return new PfxOptions().setValue(Buffer.buffer(keyStore)).setPassword(password);
    }

    private PfxOptions trust() {
      return new PfxOptions().setValue(Buffer.buffer(trustStore)).setPassword(password);
    }
  }

  /**
   * An agent's side of the bridge with its key material in any form: what {@link Loaded#applyBridgeClient} sets for
   * a member directory, for callers that hold the keys in memory (the fleet simulator's thousand agents).
   * TLS on, the given certificate and trusted CAs, no trust-all, and the coordinator's host name checked.
   */
  public static io.vertx.core.http.WebSocketClientOptions bridgeClient(
      io.vertx.core.http.WebSocketClientOptions options, io.vertx.core.net.KeyCertOptions key,
      io.vertx.core.net.TrustOptions trusted) {
    return options.setSsl(true)
        .setKeyCertOptions(Objects.requireNonNull(key, "key"))
        .setTrustOptions(Objects.requireNonNull(trusted, "trusted"))
        .setTrustAll(false)
        .setVerifyHost(true);
  }

  /**
   * An SSL context that trusts exactly the CAs of this member's trust store, for HTTPS to the coordinator's REST API
   * (a dashboard's trust store holds the coordinator CA). Blocking file IO.
   *
   * @throws IllegalStateException naming the file and what is wrong with it, never the password
   */
  public javax.net.ssl.SSLContext trustContext() {
    String password = password();
    KeyStore trusted = open(read(trustStore, "trust store"), trustStore, password);
    try {
      javax.net.ssl.TrustManagerFactory factory = javax.net.ssl.TrustManagerFactory.getInstance(
          javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
      factory.init(trusted);
      javax.net.ssl.SSLContext context = javax.net.ssl.SSLContext.getInstance("TLS");
      context.init(null, factory.getTrustManagers(), null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(trustStore + ": " + e.getMessage(), e);
    }
  }

  private String password() {
    try {
      String value = Files.readString(passwordFile, StandardCharsets.UTF_8).strip();
      if (value.isEmpty()) {
        throw new IllegalStateException(passwordFile + ": the password file is empty");
      }
      return value;
    } catch (IOException e) {
      throw new IllegalStateException(passwordFile + ": cannot read the password file (" + e + ")", e);
    }
  }

  private static byte[] read(Path file, String what) {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new IllegalStateException(file + ": cannot read the " + what + " (" + e
          + "); ./busload certs writes it", e);
    }
  }

  private static KeyStore open(byte[] bytes, Path file, String password) {
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(new ByteArrayInputStream(bytes), password.toCharArray());
      return store;
    } catch (IOException | GeneralSecurityException e) {
      // The JDK's messages ("keystore password was incorrect") never contain the password itself.
      throw new IllegalStateException(file + ": cannot open it as PKCS12 with the password in the password file ("
          + e.getMessage() + ")", e);
    }
  }

  private static boolean isKey(KeyStore store, String alias) {
    try {
      return store.isKeyEntry(alias);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }

  private static boolean isTrusted(KeyStore store, String alias) {
    try {
      return store.isCertificateEntry(alias);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }
}
