package io.busload.testsupport;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waiting in tests for something another thread or process does, by polling: no fixed sleeps. */
public final class Await {
  private static final long POLL_MILLIS = 50;

  private Await() {}

  /** Returns once {@code condition} holds; fails with "not within {patience}: {what}" when it has not by then. */
  public static void until(BooleanSupplier condition, Duration patience, String what) throws InterruptedException {
    long until = System.nanoTime() + patience.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > until) {
        throw new AssertionError("not within " + patience + ": " + what);
      }
      Thread.sleep(POLL_MILLIS);
    }
  }
}
