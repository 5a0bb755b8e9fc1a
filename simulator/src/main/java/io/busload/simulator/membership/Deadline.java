package io.busload.simulator.membership;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * When a membership run must stop growing and print what it measured: a lent machine gives a command a fixed time
 * (600 s on the device tool), and a run killed at its limit would print nothing, losing every size it measured.
 */
final class Deadline {
  /** No deadline: every wait keeps its own limit. */
  static final Deadline NONE = new Deadline(Long.MAX_VALUE, System::nanoTime);

  private final long endNanos;
  private final LongSupplier nanoClock;

  Deadline(long endNanos, LongSupplier nanoClock) {
    this.endNanos = endNanos;
    this.nanoClock = nanoClock;
  }

  /** {@code after} from now; zero or less for no deadline. */
  static Deadline after(Duration after) {
    return after.isPositive() ? new Deadline(System.nanoTime() + after.toNanos(), System::nanoTime) : NONE;
  }

  boolean passed() {
    return endNanos != Long.MAX_VALUE && nanoClock.getAsLong() - endNanos >= 0;
  }

  /** {@code limit}, or the time left before the deadline where that is shorter (zero once it passed). */
  Duration cap(Duration limit) {
    if (endNanos == Long.MAX_VALUE) {
      return limit;
    }
    long left = Math.max(0, endNanos - nanoClock.getAsLong());
    return left < limit.toNanos() ? Duration.ofNanos(left) : limit;
  }
}
