package io.busload.coordinator;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A real {@link Clock} whose time a test sets, so schedules fall due without waiting for them. */
public final class SettableClock extends Clock {
  private volatile Instant now;

  public SettableClock(Instant start) {
    this.now = start;
  }

  public void set(Instant instant) {
    now = instant;
  }

  public void advance(Duration by) {
    now = now.plus(by);
  }

  @Override
  public Instant instant() {
    return now;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
