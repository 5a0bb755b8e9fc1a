package io.busload.dashboard.cluster;

import io.busload.protocol.cluster.Cluster;
import io.busload.protocol.cluster.ClusterSettings;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * The dashboard's clustered Vert.x, joined as a lite member with role {@code dashboard}.
 *
 * <p>Joining starts with the application but is not waited for: the views must come up (and say what is missing)
 * even while no cluster can be reached, since everything but the live feed is read over REST. A lite member
 * cannot start clustered Vert.x while no data member (a coordinator) is up, because Vert.x keeps its
 * subscriptions in Hazelcast maps; so a failed join is retried until a coordinator appears.
 */
@Component
public class ClusterMember implements DisposableBean {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterMember.class);
  static final long RETRY_SECONDS = 5;

  private final ClusterSettings settings;
  private final Promise<Vertx> joined = Promise.promise();
  private final ScheduledExecutorService retries = Executors.newSingleThreadScheduledExecutor(task -> {
    Thread thread = new Thread(task, "busload-cluster-join");
    thread.setDaemon(true);
    return thread;
  });
  private volatile boolean closing;
  private volatile int attempts;
  private volatile String lastFailure;

  public ClusterMember(Environment environment) {
    this.settings = ClusterSettingsResolver.resolve(System.getenv(), environment);
    LOG.info("joining cluster '{}' on {}:{} (members {}) as a lite member", settings.clusterName(), settings.host(),
        settings.clusterPort(), settings.members());
    attempt();
  }

  private void attempt() {
    attempts++;
    Cluster.start(settings).onComplete(started -> {
      if (started.succeeded()) {
        if (closing) {
          started.result().close();
        } else {
          LOG.info("joined cluster '{}'", settings.clusterName());
          // Without it the live feed stays silent after the only coordinator is killed and restarted.
          io.busload.protocol.cluster.CoordinatorReturn.install(started.result());
          joined.complete(started.result());
        }
        return;
      }
      lastFailure = String.valueOf(started.cause().getMessage());
      if (attempts == 1) {
        LOG.warn("could not join cluster '{}' ({}); retrying every {} s", settings.clusterName(), lastFailure,
            RETRY_SECONDS, started.cause());
      } else {
        LOG.debug("join attempt {} failed: {}", attempts, lastFailure);
      }
      if (!closing) {
        retries.schedule(this::attempt, RETRY_SECONDS, TimeUnit.SECONDS);
      }
    });
  }

  public ClusterSettings settings() {
    return settings;
  }

  /** Completes once joined; never fails (failed joins are retried), so listeners can wait on it. */
  public Future<Vertx> vertx() {
    return joined.future();
  }

  /** Why the last join failed, while not joined yet; null before the first failure. */
  public String lastFailure() {
    return lastFailure;
  }

  @Override
  public void destroy() throws Exception {
    closing = true;
    retries.shutdownNow();
    Future<Vertx> vertx = joined.future();
    if (vertx.succeeded()) {
      // Leaving cleanly tells the other members at once instead of after the 10 s heartbeat timeout.
      vertx.result().close().await(20, TimeUnit.SECONDS);
    }
  }
}
