package io.busload.coordinator.api;

import java.time.Duration;

/**
 * A request refused because the coordinator is at one of its caps ({@code Limits}), not because of what it asked:
 * becomes a 429 or 503 problem with {@code Retry-After}, and the same request later may well succeed.
 */
public final class Busy extends RuntimeException {
  private final int status;
  private final Duration retryAfter;

  public Busy(int status, String detail, Duration retryAfter) {
    super(detail, null, false, false);
    if (status != 429 && status != 503) {
      throw new IllegalArgumentException("a busy answer is 429 or 503, not " + status);
    }
    this.status = status;
    this.retryAfter = retryAfter;
  }

  public int status() {
    return status;
  }

  /** Whole seconds, at least 1, as the {@code Retry-After} header gives them. */
  public long retryAfterSeconds() {
    return Math.max(1, retryAfter.toSeconds());
  }
}
