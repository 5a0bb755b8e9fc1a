package io.busload.coordinator.logging;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongConsumer;

/**
 * Lets through the first log line of each kind, then at most one per period with the count since the last, so
 * that a flood of refused input (bad frames, writes without a token) cannot flood the log while every refusal is
 * still counted on /metrics.
 */
public final class LogEvery {
  private final long periodNanos;
  private final Map<String, long[]> kinds = new ConcurrentHashMap<>();

  public LogEvery(java.time.Duration period) {
    this.periodNanos = period.toNanos();
  }

  /** Counts one of {@code kind}; when a line is due, calls {@code log} with how many were counted since the last. */
  public void count(String kind, LongConsumer log) {
    long now = System.nanoTime();
    long[] state = kinds.computeIfAbsent(kind, k -> new long[] {now - periodNanos, 0});
    long due;
    synchronized (state) {
      state[1]++;
      if (now - state[0] < periodNanos) {
        return;
      }
      due = state[1];
      state[0] = now;
      state[1] = 0;
    }
    log.accept(due);
  }
}
