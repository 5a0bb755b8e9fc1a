package io.busload.testsupport;

import io.busload.protocol.cluster.Cluster;
import io.busload.protocol.cluster.ClusterSettings;
import io.vertx.core.Vertx;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One test's cluster on loopback: a unique cluster name (members of other tests and other runs form clusters of
 * their own) and a Hazelcast port that was free, plain TCP. Members that join through it, and whatever else a test
 * hands it, are closed by {@link #close()}, the last first, so a test that failed halfway leaves nothing running.
 * Several clustered Vert.x instances in one JVM form in about 3 to 4 s this way
 * (docs/design/invariants.md#cluster-settings).
 */
public final class LoopbackCluster implements AutoCloseable {
  /** How long a member may take to join: Hazelcast's join on a busy 2-core machine. */
  public static final long JOIN_SECONDS = 60;
  /** How long a member may take to leave. */
  public static final long CLOSE_SECONDS = 30;
  public static final String HOST = "127.0.0.1";

  private final String name;
  private final int port;
  private final Deque<AutoCloseable> closing = new ArrayDeque<>();

  /** A cluster named {@code prefix-<random UUID>}. */
  public LoopbackCluster(String prefix) {
    this.name = prefix + "-" + UUID.randomUUID();
    this.port = Ports.free();
  }

  public String name() {
    return name;
  }

  /** The Hazelcast port members start from (each tries the next 20 when it is taken). */
  public int port() {
    return port;
  }

  /** How a member of {@code role} joins: bound to and reached on loopback, any free event-bus port, plain TCP. */
  public ClusterSettings settings(String role) {
    return settings(role, 0);
  }

  /** The same with a fixed event-bus port, as a firewall would name it. */
  public ClusterSettings settings(String role, int eventBusPort) {
    return new ClusterSettings(name, HOST, null, port, eventBusPort, List.of(HOST), role);
  }

  /** A plain member of {@code role}, once it has joined; closed with the cluster. */
  public Vertx join(String role) throws TimeoutException {
    return join(settings(role));
  }

  /** A member with these settings (TLS, a fixed event-bus port), once it has joined; closed with the cluster. */
  public Vertx join(ClusterSettings settings) throws TimeoutException {
    Vertx member = Cluster.start(settings).await(JOIN_SECONDS, TimeUnit.SECONDS);
    onClose(() -> member.close().await(CLOSE_SECONDS, TimeUnit.SECONDS));
    return member;
  }

  /** Runs {@code action} on {@link #close()}, before the actions registered earlier. */
  public void onClose(AutoCloseable action) {
    closing.push(action);
  }

  /** Every registered action, the last first; all run even when one fails, which then fails the close. */
  @Override
  public void close() throws Exception {
    Exception failed = null;
    while (!closing.isEmpty()) {
      try {
        closing.pop().close();
      } catch (Exception e) {
        if (failed == null) {
          failed = e;
        } else {
          failed.addSuppressed(e);
        }
      }
    }
    if (failed != null) {
      throw failed;
    }
  }
}
