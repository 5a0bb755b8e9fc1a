package io.busload.agent;

import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import picocli.CommandLine.Option;

/**
 * The options of every command that calls a coordinator's REST API ({@code push}, {@code token},
 * {@code fleet-acceptance}): which token it sends and which CA it trusts. A picocli mixin, so the three spell and
 * read them alike; each command names its own {@code --coordinator}, which some require and one defaults.
 */
public final class CoordinatorAccess {
  @Option(names = "--token-file", paramLabel = "FILE", description = "A file holding an API token with the scope"
      + " the command needs (default: $BUSLOAD_API_TOKEN_FILE; ./busload sets it to .busload/api-token)")
  Path tokenFile;

  @Option(names = "--tls-dir", paramLabel = "DIR", description = "For an https coordinator with a fleet"
      + " certificate: a folder from ./busload certs whose trust.p12 holds the coordinator CA (default:"
      + " $BUSLOAD_TLS_DIR, else the JDK's CAs)")
  Path tlsDir;

  /** Whether a token file is named, by --token-file or $BUSLOAD_API_TOKEN_FILE, before it is read. */
  public boolean tokenNamed() {
    return ApiTokenFile.named(tokenFile) != null;
  }

  /** The token, read from its file and never echoed; {@code whenMissing} when no file is named. */
  public String token(String whenMissing) {
    return ApiTokenFile.read(tokenFile, whenMissing);
  }

  /** The CA to trust for an https {@code base}; null for the JDK's. IllegalArgumentException naming --tls-dir. */
  public SSLContext trust(URI base) {
    return CoordinatorApi.trust(tlsDir, base);
  }

  /** A client for {@code base} that trusts {@link #trust}'s CA. */
  public HttpClient client(URI base, Duration connectTimeout) {
    HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(connectTimeout);
    SSLContext trust = trust(base);
    if (trust != null) {
      builder.sslContext(trust);
    }
    return builder.build();
  }
}
