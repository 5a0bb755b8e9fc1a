package io.busload.dashboard.live;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs an action at most once per interval however often it is requested (the Live view draws the results
 * of thousands of devices in batches). A request while a run is pending joins it; one after the run starts schedules
 * the next, so nothing requested is left undrawn.
 */
public final class Coalescer {
  /** One daemon thread for every open view: it only hands the action to the view's UI, which does the work. */
  private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(task -> {
    Thread thread = new Thread(task, "busload-live-coalescer");
    thread.setDaemon(true);
    return thread;
  });

  private final long millis;
  private final Runnable action;
  private final AtomicBoolean pending = new AtomicBoolean();

  public Coalescer(long millis, Runnable action) {
    this.millis = millis;
    this.action = action;
  }

  /** The action runs within the interval from now, together with every request made until it starts. */
  public void request() {
    if (pending.compareAndSet(false, true)) {
      TIMER.schedule(() -> {
        pending.set(false);
        action.run();
      }, millis, TimeUnit.MILLISECONDS);
    }
  }
}
