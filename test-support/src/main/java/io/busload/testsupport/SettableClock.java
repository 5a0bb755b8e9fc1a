package io.busload.testsupport;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A real {@link Clock} whose time a test sets, so schedules fall due and windows pass without waiting for them.
 * Starts in UTC; {@link #withZone} gives a view in another zone that follows the same time, as the contract asks.
 */
public final class SettableClock extends Clock {
  private final AtomicReference<Instant> now;
  private final ZoneId zone;

  public SettableClock(Instant start) {
    this(new AtomicReference<>(start), ZoneOffset.UTC);
  }

  private SettableClock(AtomicReference<Instant> now, ZoneId zone) {
    this.now = now;
    this.zone = zone;
  }

  public void set(Instant instant) {
    now.set(instant);
  }

  public void advance(Duration by) {
    now.updateAndGet(instant -> instant.plus(by));
  }

  @Override
  public Instant instant() {
    return now.get();
  }

  @Override
  public ZoneId getZone() {
    return zone;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return new SettableClock(now, zone);
  }
}
