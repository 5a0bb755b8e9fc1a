package io.busload.dashboard.base.ui;

import io.busload.dashboard.coordinator.CoordinatorClient;
import io.busload.dashboard.fleet.ui.FleetView;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * Runs the Fleet view's read of the fleet once the dashboard has started, in the background and without a browser
 * ({@link FleetView#warmUp}), so that the first person to open the view does not also pay for loading and compiling
 * that code in a cold JVM. Only the dashboard's own code is run: Vaadin's part of a first open (its bootstrap and
 * first navigation) is left to the browser that opens it, since Vaadin offers no public way to run it without one
 * (docs/results/2026-11-27-first-open measures what that costs).
 */
@Component
public class FirstOpenWarmup {
  private static final Logger LOG = LoggerFactory.getLogger(FirstOpenWarmup.class);
  /** Enough rounds for the fleet's JSON and table code to be compiled, not only loaded. */
  static final int ROUNDS = 3;

  private final CoordinatorClient coordinator;

  public FirstOpenWarmup(CoordinatorClient coordinator) {
    this.coordinator = coordinator;
  }

  @EventListener(ApplicationReadyEvent.class)
  public void start() {
    Thread.ofVirtual().name("first-open-warm-up").start(this::run);
  }

  private void run() {
    long started = System.nanoTime();
    try {
      FleetView.warmUp(coordinator, ROUNDS);
    } catch (RuntimeException e) {
      // Only an optimisation: the view, opened for real, shows whatever this met.
      LOG.warn("the Fleet view's warm-up failed; its first open will be slower", e);
      return;
    }
    LOG.info("warmed up for a first open: the Fleet view's read {} ms ({} rounds)",
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), ROUNDS);
  }
}
