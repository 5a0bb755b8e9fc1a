package io.busload.coordinator.api;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * At most {@code capacity} requests of one kind inside at once; the next is refused with {@link Busy} before it costs
 * anything (a body read, a worker, a connection). Counted on the event loop and on workers alike, so atomic.
 */
final class Gate {
  private final String what;
  private final int capacity;
  private final int status;
  private final Duration retryAfter;
  private final AtomicInteger inside = new AtomicInteger();

  /** @param what the kind of request, as the refusal names it ("pushes") */
  Gate(String what, int capacity, int status, Duration retryAfter) {
    if (capacity < 1) {
      throw new IllegalArgumentException(what + ": capacity at least 1, got " + capacity);
    }
    this.what = what;
    this.capacity = capacity;
    this.status = status;
    this.retryAfter = retryAfter;
  }

  /** Takes a place, or throws {@link Busy}; the caller gives the place back with {@link #leave()} exactly once. */
  void enter() {
    if (inside.incrementAndGet() > capacity) {
      inside.decrementAndGet();
      throw new Busy(status, "the coordinator takes at most " + capacity + " " + what + " at once; retry in "
          + Math.max(1, retryAfter.toSeconds()) + " s", retryAfter);
    }
  }

  void leave() {
    inside.decrementAndGet();
  }

  int inside() {
    return inside.get();
  }
}
