package io.busload.testsupport;

import io.busload.protocol.cluster.FleetTls;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * A peer holding a member's key and trust as they are on disk now: it shows which certificate a server presents to a
 * new handshake, the one way to see that a renewal reached a running member.
 */
public final class MemberTls {
  private MemberTls() {}

  /** A TLS context with {@code member}'s key and trust stores (a directory from {@link FleetCerts#issue}). */
  public static SSLContext context(Path member) throws IOException, GeneralSecurityException {
    char[] password = Files.readString(member.resolve(FleetTls.PASSWORD_FILE)).strip().toCharArray();
    KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keys.init(KeyStore.getInstance(member.resolve(FleetTls.KEY_STORE).toFile(), password), password);
    TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trust.init(KeyStore.getInstance(member.resolve(FleetTls.TRUST_STORE).toFile(), password));
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keys.getKeyManagers(), trust.getTrustManagers(), null);
    return context;
  }

  /** The certificate the server at {@code host:port} presents to a new handshake from {@code member}. */
  public static X509Certificate served(Path member, String host, int port) throws IOException, GeneralSecurityException {
    try (SSLSocket socket = (SSLSocket) context(member).getSocketFactory().createSocket(host, port)) {
      socket.setSoTimeout(10_000);
      socket.startHandshake();
      return (X509Certificate) socket.getSession().getPeerCertificates()[0];
    }
  }
}
