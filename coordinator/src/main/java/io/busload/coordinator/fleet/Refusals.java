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

  /**
   * Why an agent was refused something that is not its own, or a name that would corrupt the log; the
   * {@code reason} label of {@code busload_agent_refused_total}.
   */
  public enum Trespass {
    /**
     * On the bridge: a message whose agentId is not the connection's certificate name, or a register of another
     * agent's runs address.
     */
    NOT_ITS_NAME,
    /** A hello listed a device that another agent owns; the owner keeps it. */
    DEVICE_OWNED,
    /** A status for a run the coordinator did not assign to this agent on that device. */
    RUN_NOT_ASSIGNED,
    /** A heartbeat naming a device that another agent owns (that state is ignored). */
    HEARTBEAT_DEVICE,
    /** A result for a device that another agent owns. */
    RESULT_DEVICE,
    /** A result naming a run the coordinator assigned to another agent or device. */
    RESULT_RUN,
    /** A result naming a sweep that its run is not part of. */
    RESULT_SWEEP,
    /** A name that reaches the log holds CR, LF or another control character. */
    CONTROL_CHARACTER;

    String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /**
   * How many (name, reason) pairs are remembered as logged. Bridge names come from certificates, so few; cluster
   * members name themselves, and past this many new pairs are counted but no longer logged, so that no sender can
   * grow this set or the log without bound.
   */
  static final int MAX_LOGGED_TRESPASSERS = 10_000;

  private final MeterRegistry registry;
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();
  private final LogEvery logged = new LogEvery(java.time.Duration.ofSeconds(10));
  private final Map<Trespass, Counter> trespasses = new ConcurrentHashMap<>();
  private final java.util.Set<String> trespassersLogged = ConcurrentHashMap.newKeySet();

  public Refusals(MeterRegistry registry) {
    this.registry = registry;
  }

  void count(String address, Reason reason, String detail) {
    String key = address + " " + reason.label();
    counters.computeIfAbsent(key, k -> Counter.builder("busload_messages_refused")
        .description("event-bus messages refused or dropped by the coordinator, by address and reason")
        .tag("address", address).tag("reason", reason.label()).register(registry)).increment();
    logged.count(key, n -> LOG.warn("refused {} message(s) on {} ({}), latest: {}", n, address, reason.label(),
        printable(detail)));
  }

  /**
   * Counts an agent's refused claim and logs it the first time this name is refused for this reason only: an agent
   * that repeats it, however fast, adds to the count and never to the log. {@code name} is the certificate's name on
   * the bridge, which the bridge has checked is the message's agentId; on the cluster it is the agentId as claimed.
   */
  void trespass(String name, Trespass reason, String detail) {
    trespasses.computeIfAbsent(reason, r -> Counter.builder("busload_agent_refused")
        .description("agent messages refused for naming what is not the agent's own, or control characters, by reason")
        .tag("reason", r.label()).register(registry)).increment();
    String safeName = printable(name);
    if (trespassersLogged.size() < MAX_LOGGED_TRESPASSERS && trespassersLogged.add(safeName + " " + reason.label())) {
      LOG.warn("agent '{}' refused ({}), logged once for this agent and reason, counted in busload_agent_refused_total:"
          + " {}", safeName, reason.label(), printable(detail));
    }
  }

  /** How many agent messages were refused for {@code reason} so far. */
  public double count(Trespass reason) {
    Counter counter = trespasses.get(reason);
    return counter == null ? 0 : counter.count();
  }

  /** The text with every control character written as a Java escape (backslash, u, four hex digits), on one line. */
  static String printable(String text) {
    if (text == null) {
      return "null";
    }
    StringBuilder out = new StringBuilder(Math.min(text.length(), 300));
    for (int i = 0; i < text.length() && i < 300; i++) {
      char c = text.charAt(i);
      if (MessageCheck.control(c)) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return text.length() > 300 ? out.append("...").toString() : out.toString();
  }

  /** How many were refused on {@code address} for {@code reason} so far. */
  public double count(String address, Reason reason) {
    Counter counter = counters.get(address + " " + reason.label());
    return counter == null ? 0 : counter.count();
  }
}
