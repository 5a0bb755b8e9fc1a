package io.busload.agent;

import io.busload.protocol.cluster.FleetTls;
import java.net.URI;
import java.nio.file.Path;
import javax.net.ssl.SSLContext;

/**
 * Where the commands that speak to the coordinator's REST API ({@code push}, {@code token}, the fleet's acceptance in
 * {@code crosscheck}) find it and which CA they trust for it, read one way so that {@code --coordinator} and {@code
 * --tls-dir} mean the same in each and refuse the same mistakes with the same words. A refusal is an {@link
 * IllegalArgumentException} whose message names the option; the command turns it into its usage error.
 */
public final class CoordinatorApi {
  private CoordinatorApi() {}

  /** {@code given} as the API's base URL, ending in {@code /} so that paths resolve below it. */
  public static URI base(String given) {
    URI uri;
    try {
      uri = URI.create(given.strip());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--coordinator: not a URL: '" + given + "'", e);
    }
    if (uri.getHost() == null || !("http".equalsIgnoreCase(uri.getScheme())
        || "https".equalsIgnoreCase(uri.getScheme()))) {
      throw new IllegalArgumentException("--coordinator: an http or https URL with a host, such as"
          + " https://coordinator:8081; got '" + given + "'");
    }
    return uri.toString().endsWith("/") ? uri : URI.create(uri + "/");
  }

  /**
   * The coordinator CA of {@code tlsDir}'s trust store (else of {@code $BUSLOAD_TLS_DIR}) for an https {@code base};
   * null, the JDK's CAs, where neither is given or the coordinator is plain http.
   */
  public static SSLContext trust(Path tlsDir, URI base) {
    Path dir = tlsDir;
    String env = System.getenv("BUSLOAD_TLS_DIR");
    if (dir == null && env != null && !env.isBlank()) {
      dir = Path.of(env.strip());
    }
    if (dir == null || !"https".equalsIgnoreCase(base.getScheme())) {
      return null;
    }
    try {
      return FleetTls.inDirectory(dir).trustContext();
    } catch (IllegalStateException e) {
      throw new IllegalArgumentException("--tls-dir: " + e.getMessage(), e);
    }
  }
}
