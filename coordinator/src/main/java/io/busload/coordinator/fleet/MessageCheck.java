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
 * names the field.
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
        text("agentId", hello.agentId(), 200, true),
        text("host", hello.host(), 255, true),
        text("agentVersion", hello.agentVersion(), 100, true),
        text("fatbinHash", hello.fatbinHash(), 128, false),
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
      String label = text("labels[" + i + "]", hello.labels().get(i), MAX_LABEL, true);
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
    String problem = first(text("agentId", heartbeat.agentId(), 200, true), instant("sentAt", heartbeat.sentAt(), false));
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
      problem = first(text(at + ".deviceId", state.deviceId(), 255, true), text(at + ".runId", state.runId(), 64, false),
          text(at + ".kernel", state.kernel(), 200, false), counts(at, state.completed(), state.total()));
      if (problem != null) {
        return problem;
      }
    }
    return null;
  }

  static String status(RunStatus status) {
    return first(
        text("runId", status.runId(), 64, true),
        text("sweepId", status.sweepId(), 64, false),
        text("agentId", status.agentId(), 200, true),
        text("deviceId", status.deviceId(), 255, true),
        status.state() == null ? "state: required" : null,
        counts("", status.completed(), status.total()),
        text("message", status.message(), MAX_TEXT, false),
        instant("at", status.at(), false));
  }

  /** Null for a schema version this coordinator reads, else why not. */
  static String version(int version) {
    if (version >= 1 && version <= Protocol.SCHEMA_VERSION) {
      return null;
    }
    return version > Protocol.SCHEMA_VERSION ? "schema version " + version + " is newer than " + Protocol.SCHEMA_VERSION
        : "schema version " + version + " is unknown; known: 1 to " + Protocol.SCHEMA_VERSION;
  }

  /**
   * A result from an agent: {@link #result}, and no origin, which only a coordinator sets on results it took by push;
   * a member claiming one would have its results shown as pushed from wherever it says.
   */
  static String fromAgent(KernelResult r) {
    return r.origin() != null ? "origin: set by the coordinator on pushed results, never sent by an agent" : result(r);
  }

  static String result(KernelResult r) {
    if (r.id() == null) {
      return "id: required";
    }
    String problem = first(
        text("runId", r.runId(), 64, false),
        text("sweepId", r.sweepId(), 64, false),
        text("agentId", r.agentId(), 200, false),
        text("agentVersion", r.agentVersion(), 100, false),
        text("fatbinHash", r.fatbinHash(), 128, false),
        r.device() == null ? "device: required" : device("device", r.device()),
        text("suite", r.suite(), 100, false),
        text("kernel", r.kernel(), 200, true),
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
        r.sampling() == null ? null : text("sampling.clocks.note", r.sampling().clocks().note(), 1000, false));
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
      problem = text("params", param.getKey(), 200, true);
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
        text(at + ".id", d.id(), 255, true),
        text(at + ".kind", d.kind(), 16, true),
        text(at + ".name", d.name(), 255, true),
        text(at + ".uuid", d.uuid(), 100, false),
        text(at + ".computeCapability", d.computeCapability(), 16, false),
        text(at + ".driverVersion", d.driverVersion(), 100, false),
        Double.isFinite(d.theoreticalPeakBytesPerSecond()) ? null : at + ".theoreticalPeakBytesPerSecond: must be finite");
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
