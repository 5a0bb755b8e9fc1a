package io.busload.protocol.cluster;

import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches a member's certificate files and hands newly loaded certificates over when they change, so that renewed
 * certificates ({@code ./busload certs renew}, copied to the host) take effect without a restart and without dropping
 * connections: servers and clients take them through Vert.x's {@code updateSSLOptions}, which applies to new
 * handshakes only.
 *
 * <p>The files are polled (their size and modification time), not watched with inotify: the member directory may be a
 * mount or a copy that inotify does not see. New files are checked as at start ({@link FleetTls#load}); files that do
 * not load (half copied, wrong password, another role, expired) are logged and the certificates in use are kept.
 */
public final class TlsReload {
  private static final Logger LOG = LoggerFactory.getLogger(TlsReload.class);

  private final FleetTls tls;
  private final String role;
  private volatile String seen;

  private TlsReload(FleetTls tls, String role) {
    this.tls = tls;
    this.role = role;
    this.seen = stamp();
  }

  /**
   * Polls {@code tls}'s files every {@code every}; on a change that loads, calls {@code reloaded} on the caller's
   * context. Returns the timer's id, which {@code vertx.cancelTimer} stops (a verticle's timers stop with it).
   */
  public static long watch(Vertx vertx, FleetTls tls, String role, Duration every,
      Consumer<FleetTls.Loaded> reloaded) {
    TlsReload watch = new TlsReload(tls, role);
    return vertx.setPeriodic(every.toMillis(), id -> vertx.executeBlocking(watch::check, false)
        .onSuccess(loaded -> {
          if (loaded != null) {
            reloaded.accept(loaded);
          }
        }));
  }

  /** The new certificates when the files changed and load; null otherwise. Blocking file IO. */
  FleetTls.Loaded check() {
    String now = stamp();
    if (now.equals(seen)) {
      return null;
    }
    seen = now;
    try {
      FleetTls.Loaded loaded = tls.load(role);
      LOG.info("TLS certificates reloaded from {}: {}, valid until {}", tls.keyStore().getParent(),
          loaded.certificate().getSubjectX500Principal().getName(), loaded.certificate().getNotAfter().toInstant());
      return loaded;
    } catch (RuntimeException e) {
      LOG.warn("TLS certificates in {} changed but were not loaded, the ones in use are kept: {}",
          tls.keyStore().getParent(), e.getMessage());
      return null;
    }
  }

  private String stamp() {
    StringBuilder stamp = new StringBuilder();
    for (Path file : List.of(tls.keyStore(), tls.trustStore(), tls.passwordFile())) {
      try {
        stamp.append(Files.getLastModifiedTime(file).toMillis()).append('/').append(Files.size(file)).append(';');
      } catch (IOException e) {
        stamp.append("missing;");
      }
    }
    return stamp.toString();
  }
}
