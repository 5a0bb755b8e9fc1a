package io.busload.coordinator.fleet;

import io.busload.protocol.AgentHello;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.Heartbeat;
import io.busload.protocol.KernelResult;
import io.busload.protocol.Protocol;
import io.busload.protocol.RunStatus;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What a message must look like before the coordinator acts on it: required fields present, strings
 * within their column's length and free of NUL (PostgreSQL refuses it in text), numbers finite, instants within
 * what a timestamp column holds, lists of bounded size. A result that passes cannot fail its batch's insert on
 * its own content, so one bad result never holds good ones back. Each check returns null or the reason, which
 * names the field. Names (ids, host, labels, device and kernel names) hold no control character: they reach the log.
 */
final class MessageCheck {
  /** Far more than any suite measures (a sample is one timed batch), far less than a memory attack needs. */
  static final int MAX_SAMPLES = 100_000;
  static final int MAX_LIST = 1_000;
  static final int MAX_TEXT = 10_000;
  /** A host's labels: as many and as long as the agent lets through ({@code AgentConfig.labels}). */
  static final int MAX_LABELS = 32;
  static final int MAX_LABEL = 100;
  static final Instant EARLIEST = Instant.parse("2000-01-01T00:00:00Z");
  static final Instant LATEST = Instant.parse("2200-01-01T00:00:00Z");

  private MessageCheck() {}

  static String hello(AgentHello hello) {
    String problem = first(
        name("agentId", hello.agentId(), 200, true),
        name("host", hello.host(), 255, true),
        name("agentVersion", hello.agentVersion(), 100, true),
        name("fatbinHash", hello.fatbinHash(), 128, false),
        instant("startedAt", hello.startedAt(), false));
    if (problem != null) {
      return problem;
    }
    if (hello.devices() == null || hello.devices().size() > MAX_LIST) {
      return "devices: required, at most " + MAX_LIST;
    }
    if (hello.labels().size() > MAX_LABELS) {
      return "labels: at most " + MAX_LABELS + ", got " + hello.labels().size();
    }
    for (int i = 0; i < hello.labels().size(); i++) {
      String label = name("labels[" + i + "]", hello.labels().get(i), MAX_LABEL, true);
      if (label != null) {
        return label;
      }
    }
    for (int i = 0; i < hello.devices().size(); i++) {
      String device = device("devices[" + i + "]", hello.devices().get(i));
      if (device != null) {
        return device;
      }
    }
    return null;
  }

  static String heartbeat(Heartbeat heartbeat) {
    String problem = first(name("agentId", heartbeat.agentId(), 200, true), instant("sentAt", heartbeat.sentAt(), false));
    if (problem != null) {
      return problem;
    }
    if (heartbeat.devices().size() > MAX_LIST) {
      return "devices: at most " + MAX_LIST;
    }
    for (int i = 0; i < heartbeat.devices().size(); i++) {
      Heartbeat.DeviceState state = heartbeat.devices().get(i);
      String at = "devices[" + i + "]";
      if (state == null) {
        return at + ": required";
      }
      problem = first(name(at + ".deviceId", state.deviceId(), 255, true), name(at + ".runId", state.runId(), 64, false),
          name(at + ".kernel", state.kernel(), 200, false), counts(at, state.completed(), state.total()));
      if (problem != null) {
        return problem;
      }
    }
    return null;
  }

  static String status(RunStatus status) {
    return first(
        name("runId", status.runId(), 64, true),
        name("sweepId", status.sweepId(), 64, false),
        name("agentId", status.agentId(), 200, true),
        name("deviceId", status.deviceId(), 255, true),
        status.state() == null ? "state: required" : null,
        counts("", status.completed(), status.total()),
        text("message", status.message(), MAX_TEXT, false),
        instant("at", status.at(), false));
  }

  /** Null for a schema version this coordinator reads, else why not. */
  static String version(int version) {
    if (version >= Protocol.OLDEST_SCHEMA_VERSION && version <= Protocol.SCHEMA_VERSION) {
      return null;
    }
    return version > Protocol.SCHEMA_VERSION ? "schema version " + version + " is newer than " + Protocol.SCHEMA_VERSION
        : "schema version " + version + " is unknown; known: " + Protocol.OLDEST_SCHEMA_VERSION + " to "
            + Protocol.SCHEMA_VERSION;
  }

  /**
   * Null for a hello whose schema version this coordinator reads, else why not, naming the agent's release and schema
   * beside this coordinator's and which of the two to upgrade: the agent logs it on every retry, and an operator
   * mid-upgrade reads there what is out of order (docs/upgrading.md).
   */
  static String helloVersion(AgentHello hello) {
    String unknown = version(hello.schemaVersion());
    if (unknown == null) {
      return null;
    }
    String release = hello.agentVersion() == null ? "unknown" : hello.agentVersion();
    release = release.length() > 100 ? release.substring(0, 100) + "..." : release;
    return unknown + ": agent release " + release + " speaks schema " + hello.schemaVersion()
        + ", this coordinator (release " + Protocol.releaseOf(MessageCheck.class) + ") reads schema "
        + Protocol.OLDEST_SCHEMA_VERSION + " to " + Protocol.SCHEMA_VERSION + "; "
        + (hello.schemaVersion() > Protocol.SCHEMA_VERSION ? "upgrade the coordinators before their agents"
            : "upgrade this agent") + " (docs/upgrading.md)";
  }

  /**
   * A result from an agent: {@link #result}, its agentId, and no origin, which only a coordinator sets on results it
   * took by push; a member claiming one would have its results shown as pushed from wherever it says.
   */
  static String fromAgent(KernelResult r) {
    if (r.origin() != null) {
      return "origin: set by the coordinator on pushed results, never sent by an agent";
    }
    // Whose result it is decides which devices and runs it may name: an agent's result says who sent it.
    return r.agentId() == null || r.agentId().isBlank() ? "agentId: required in a result from an agent" : result(r);
  }

  static String result(KernelResult r) {
    if (r.id() == null) {
      return "id: required";
    }
    String problem = first(
        name("runId", r.runId(), 64, false),
        name("sweepId", r.sweepId(), 64, false),
        name("agentId", r.agentId(), 200, false),
        name("agentVersion", r.agentVersion(), 100, false),
        name("fatbinHash", r.fatbinHash(), 128, false),
        r.device() == null ? "device: required" : device("device", r.device()),
        name("suite", r.suite(), 100, false),
        name("kernel", r.kernel(), 200, true),
        text("method", r.method(), MAX_TEXT, false),
        instant("measuredAt", r.measuredAt(), true),
        finite("medianSeconds", r.medianSeconds()),
        finite("minSeconds", r.minSeconds()),
        finite("maxSeconds", r.maxSeconds()),
        finite("relativeSpread", r.relativeSpread()),
        r.bandwidth() == null ? null : finite("bandwidth", r.bandwidth()),
        r.launchesPerSample() < 0 || r.warmupLaunches() < 0 ? "launchesPerSample: must not be negative" : null,
        r.bytes() < 0 || r.bytesRead() < 0 || r.bytesWritten() < 0 ? "bytes: must not be negative" : null,
        r.counters() == null ? null : io.busload.coordinator.store.ResultCounters.problem(r.counters()),
        r.counters() == null ? null : counterText(r.counters()),
        r.sampling() == null ? null : text("sampling.clocks.note", r.sampling().clocks().note(), 1000, false),
        r.health() == null ? null : text("health.note", r.health().note(), 1000, false),
        r.health() == null || r.health().xids() == null || r.health().xids().size() <= MAX_LIST ? null
            : "health.xids: at most " + MAX_LIST + ", got " + r.health().xids().size());
    if (problem != null) {
      return problem;
    }
    if (r.samples().size() > MAX_SAMPLES) {
      return "samples: at most " + MAX_SAMPLES + ", got " + r.samples().size();
    }
    for (double sample : r.samples()) {
      if (!Double.isFinite(sample)) {
        return "samples: must be finite numbers";
      }
    }
    if (r.mismatches().size() > MAX_LIST) {
      return "mismatches: at most " + MAX_LIST;
    }
    for (String mismatch : r.mismatches()) {
      problem = text("mismatches", mismatch, MAX_TEXT, true);
      if (problem != null) {
        return problem;
      }
    }
    if (r.params().size() > MAX_LIST) {
      return "params: at most " + MAX_LIST;
    }
    for (Map.Entry<String, Object> param : r.params().entrySet()) {
      Object value = param.getValue();
      problem = name("params", param.getKey(), 200, true);
      if (problem == null && !(value instanceof Number || value instanceof Boolean || value instanceof String)) {
        problem = "params." + param.getKey() + ": must be a number, string or boolean";
      }
      if (problem == null && value instanceof String s) {
        problem = text("params." + param.getKey(), s, 1000, true);
      }
      if (problem == null && value instanceof Double d && !Double.isFinite(d)) {
        problem = "params." + param.getKey() + ": must be finite";
      }
      if (problem != null) {
        return problem;
      }
    }
    return null;
  }

  private static String device(String at, DeviceInfo d) {
    if (d == null) {
      return at + ": required";
    }
    return first(
        name(at + ".id", d.id(), 255, true),
        name(at + ".kind", d.kind(), 16, true),
        name(at + ".name", d.name(), 255, true),
        name(at + ".uuid", d.uuid(), 100, false),
        name(at + ".computeCapability", d.computeCapability(), 16, false),
        name(at + ".driverVersion", d.driverVersion(), 100, false),
        Double.isFinite(d.theoreticalPeakBytesPerSecond()) ? null : at + ".theoreticalPeakBytesPerSecond: must be finite");
  }

  /** How a refusal for a control character ends; the intake counts these apart from other bad input. */
  static final String CONTROL = "must not contain control characters (CR, LF, C0, C1 or DEL)";

  /**
   * {@link #text}, and no control character: these are names, which the coordinator writes into its plain-text log
   * and its dashboards, where a CR or LF would forge a line and an escape sequence would rewrite a terminal.
   */
  private static String name(String field, String value, int max, boolean required) {
    String problem = text(field, value, max, required);
    if (problem != null || value == null) {
      return problem;
    }
    for (int i = 0; i < value.length(); i++) {
      if (control(value.charAt(i))) {
        return field + ": " + CONTROL;
      }
    }
    return null;
  }

  /** C0 (U+0000 to U+001F, CR and LF among them), DEL (U+007F) and C1 (U+0080 to U+009F). */
  static boolean control(char c) {
    return c < 0x20 || c >= 0x7f && c <= 0x9f;
  }

  private static String text(String field, String value, int max, boolean required) {
    if (value == null) {
      return required ? field + ": required" : null;
    }
    if (required && value.isBlank()) {
      return field + ": must not be blank";
    }
    if (value.length() > max) {
      return field + ": at most " + max + " characters, got " + value.length();
    }
    if (value.indexOf('\u0000') >= 0) {
      return field + ": must not contain NUL characters";
    }
    return unpairedSurrogate(value) ? field + ": must be Unicode text (an unpaired surrogate)" : null;
  }

  /**
   * Whether the text holds half of a UTF-16 surrogate pair. JSON can carry one ({@code "\ud800"}), Java reads it,
   * but it is no character: encoded as UTF-8 PostgreSQL refuses the text, and left escaped in the stored JSON (the
   * coordinator keeps what the agent sent) PostgreSQL's jsonb refuses the whole result when a query reads it.
   */
  static boolean unpairedSurrogate(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (Character.isSurrogate(c)) {
        if (Character.isHighSurrogate(c) && i + 1 < value.length() && Character.isLowSurrogate(value.charAt(i + 1))) {
          i++;
        } else {
          return true;
        }
      }
    }
    return false;
  }

  /** The counters' text, which {@code ResultCounters} bounds and clears of NUL, must be Unicode text as well. */
  private static String counterText(io.busload.protocol.Counters counters) {
    List<String> texts = new java.util.ArrayList<>(counters.flags());
    texts.addAll(counters.kernels());
    if (counters.method() != null) {
      texts.add(counters.method());
    }
    for (String text : texts) {
      if (text != null && unpairedSurrogate(text)) {
        return "counters: must be Unicode text (an unpaired surrogate)";
      }
    }
    return null;
  }

  private static String instant(String field, Instant value, boolean required) {
    if (value == null) {
      return required ? field + ": required" : null;
    }
    return value.isBefore(EARLIEST) || value.isAfter(LATEST)
        ? field + ": must lie between " + EARLIEST + " and " + LATEST : null;
  }

  private static String finite(String field, double value) {
    return Double.isFinite(value) ? null : field + ": must be a finite number";
  }

  private static String counts(String at, int completed, int total) {
    return completed < 0 || total < 0 ? (at.isEmpty() ? "" : at + ".") + "completed: counts must not be negative" : null;
  }

  private static String first(String... problems) {
    for (String problem : problems) {
      if (problem != null) {
        return problem;
      }
    }
    return null;
  }
}
