package io.busload.coordinator.fleet;

import io.busload.coordinator.logging.LogEvery;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts every event-bus message the coordinator refuses or drops, by address and reason, as
 * {@code busload_messages_refused_total{address,reason}} on /metrics, and logs them without letting a
 * flood of bad messages flood the log: the first of each kind, then at most one line per kind every 10 s
 * with the count since.
 */
public final class Refusals {
  private static final Logger LOG = LoggerFactory.getLogger(Refusals.class);

  /** Why a message was refused; the metric's {@code reason} label. */
  public enum Reason {
    /** The body could not be decoded (bad JSON, truncated, a length that lies). */
    MALFORMED,
    /** It decoded, but not to the record this address takes. */
    WRONG_TYPE,
    /** A schema version this coordinator does not know. */
    SCHEMA,
    /** A required field missing, a string too long, a number not finite, ... ({@link MessageCheck}). */
    INVALID,
    /** Handling it threw: a bug, counted so it is seen, never let through to kill anything. */
    FAILED,
    /** A frame in a wire version from the future, refused by Vert.x before any consumer ({@link WireRefusals}). */
    WIRE_VERSION,
    /** A frame under a codec name this coordinator never registered, refused by Vert.x ({@link WireRefusals}). */
    UNKNOWN_CODEC,
    /** A frame whose inner lengths lie, so that Vert.x could not even read its address ({@link WireRefusals}). */
    BAD_FRAME;

    String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  private final MeterRegistry registry;
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();
  private final LogEvery logged = new LogEvery(java.time.Duration.ofSeconds(10));

  public Refusals(MeterRegistry registry) {
    this.registry = registry;
  }

  void count(String address, Reason reason, String detail) {
    String key = address + " " + reason.label();
    counters.computeIfAbsent(key, k -> Counter.builder("busload_messages_refused")
        .description("event-bus messages refused or dropped by the coordinator, by address and reason")
        .tag("address", address).tag("reason", reason.label()).register(registry)).increment();
    logged.count(key, n -> LOG.warn("refused {} message(s) on {} ({}), latest: {}", n, address, reason.label(), detail));
  }

  /** How many were refused on {@code address} for {@code reason} so far. */
  public double count(String address, Reason reason) {
    Counter counter = counters.get(address + " " + reason.label());
    return counter == null ? 0 : counter.count();
  }
}
