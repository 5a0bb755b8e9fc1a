package io.busload.dashboard.cluster;

import com.vaadin.flow.shared.Registration;
import io.busload.protocol.Addresses;
import io.busload.protocol.KernelResult;
import io.busload.protocol.RunStatus;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;

/**
 * Fans out what the coordinator publishes ({@link Addresses#LIVE_RESULTS}, {@link Addresses#LIVE_RUNS}) to every
 * open view.
 *
 * <p>One consumer per address for the whole process rather than one per browser tab: a tab costs a list entry,
 * not a cluster-wide subscription. Listeners run on a Vert.x event-loop thread and must not block.
 */
@Service
public class LiveFeed {
  private static final Logger LOG = LoggerFactory.getLogger(LiveFeed.class);

  /** What a view wants to hear; either callback may be a no-op. */
  public interface Listener {
    void result(KernelResult result);

    void run(RunStatus status);
  }

  private final List<Listener> listeners = new CopyOnWriteArrayList<>();
  private final Future<Void> ready;

  private final ClusterMember member;

  public LiveFeed(ClusterMember member) {
    this.member = member;
    this.ready = member.vertx().compose(this::subscribe);
  }

  private Future<Void> subscribe(Vertx vertx) {
    Future<Void> results = vertx.eventBus().<KernelResult>consumer(Addresses.LIVE_RESULTS,
        message -> each(listener -> listener.result(message.body()))).completion();
    Future<Void> runs = vertx.eventBus().<RunStatus>consumer(Addresses.LIVE_RUNS,
        message -> each(listener -> listener.run(message.body()))).completion();
    return Future.all(results, runs).mapEmpty();
  }

  private void each(Consumer<Listener> call) {
    for (Listener listener : listeners) {
      try {
        call.accept(listener);
      } catch (RuntimeException e) {
        // One broken tab (closed session, detached UI) must not starve the others.
        LOG.warn("a live listener failed", e);
      }
    }
  }

  public Registration register(Listener listener) {
    listeners.add(listener);
    return () -> listeners.remove(listener);
  }

  /** Completes once both consumers are registered cluster-wide. */
  public Future<Void> ready() {
    return ready;
  }

  /** In words, for the views: whether results will arrive by themselves. */
  public String state() {
    if (ready.succeeded()) {
      return "live";
    }
    if (ready.failed()) {
      return "live results off: " + ready.cause().getMessage();
    }
    String failure = member.lastFailure();
    String cluster = "cluster '" + member.settings().clusterName() + "'";
    return failure == null ? "joining " + cluster
        : "live results wait for a coordinator in " + cluster + " (last try: " + failure + ")";
  }
}
