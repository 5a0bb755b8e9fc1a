package io.busload.coordinator.api;

import io.vertx.core.Future;
import io.vertx.core.WorkerExecutor;
import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * Where the expensive reads run (A/B verdicts, change points, annotations, comparisons): a worker pool and database
 * connections of their own, so that a crowd of readers waits behind itself and never behind, or in front of, the
 * commits that store results. A bounded number wait for a worker; the next is refused with 503 and
 * {@code Retry-After} at once, rather than queued without end.
 */
public final class AnalysisPool {
  private final WorkerExecutor workers;
  private final Gate gate;

  /** @param capacity reads running or waiting at once: the pool's workers and the queue behind them */
  public AnalysisPool(WorkerExecutor workers, int capacity, Duration retryAfter) {
    this.workers = workers;
    this.gate = new Gate("analysis reads", capacity, 503, retryAfter);
  }

  /** Runs {@code work} on the pool, or fails with {@link Busy} at once when the pool is full. */
  public <T> Future<T> run(Callable<T> work) {
    try {
      gate.enter();
    } catch (Busy busy) {
      return Future.failedFuture(busy);
    }
    return workers.executeBlocking(work, false).andThen(done -> gate.leave());
  }

  /** Reads running or waiting now. */
  int inside() {
    return gate.inside();
  }
}
