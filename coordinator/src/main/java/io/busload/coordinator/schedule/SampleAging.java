package io.busload.coordinator.schedule;

import io.busload.coordinator.store.SampleRetention;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The retention of raw samples, run by the leader only (the holder of the leader lease): one coordinator drops a
 * month, and a standby sharing the store never races it. Each run drops what {@link SampleRetention} finds past the
 * retention, says so in the log, and counts it in /metrics. Summaries are never touched.
 */
public final class SampleAging {
  private static final Logger LOG = LoggerFactory.getLogger(SampleAging.class);
  /** A month ages out at most once a month; checking every hour costs one catalog read and catches it early. */
  public static final Duration EVERY = Duration.ofHours(1);

  private final SampleRetention retention;
  private final Duration keep;
  private final Clock clock;
  private final BooleanSupplier leading;
  private final Counter months;
  private final Counter results;
  private final Counter bytes;
  private final Counter failures;

  /**
   * @param keep how long samples are kept; null keeps them for good (then {@link #run} does nothing)
   * @param leading whether this coordinator leads now
   */
  public SampleAging(SampleRetention retention, Duration keep, Clock clock, BooleanSupplier leading,
      MeterRegistry metrics) {
    this.retention = retention;
    this.keep = keep;
    this.clock = clock;
    this.leading = leading;
    months = Counter.builder("busload_sample_months_dropped")
        .description("month partitions of raw samples dropped by the retention").register(metrics);
    results = Counter.builder("busload_sample_results_aged_out")
        .description("results whose raw samples the retention dropped (their summaries stay)").register(metrics);
    bytes = Counter.builder("busload_sample_bytes_aged_out")
        .description("bytes on disk freed by dropping raw samples, indexes included").register(metrics);
    failures = Counter.builder("busload_sample_retention_failures")
        .description("retention runs that failed (tried again at the next run)").register(metrics);
  }

  /** One run, when leading and a retention is set. Blocks: call from a worker thread. */
  public SampleRetention.Dropped run() {
    if (keep == null || !leading.getAsBoolean()) {
      return null;
    }
    try {
      SampleRetention.Dropped dropped = retention.ageOut(clock.instant(), keep);
      if (!dropped.months().isEmpty()) {
        months.increment(dropped.months().size());
        results.increment(dropped.results());
        bytes.increment(dropped.bytes());
        LOG.info("sample retention ({} days): dropped the raw samples of {} ({} results, {} MiB); summaries kept;"
            + " samples are kept from {} on", keep.toDays(), dropped.months(), dropped.results(),
            dropped.bytes() / (1L << 20), dropped.droppedBefore());
      }
      return dropped;
    } catch (RuntimeException e) {
      failures.increment();
      LOG.warn("sample retention failed; tried again in {}", EVERY, e);
      return null;
    }
  }
}
