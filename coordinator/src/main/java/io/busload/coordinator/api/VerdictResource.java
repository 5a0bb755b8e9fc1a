package io.busload.coordinator.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.analysis.verdict.Thresholds;
import io.busload.coordinator.analysis.AbVerdicts;
import io.busload.coordinator.analysis.AcceptedChanges;
import io.busload.coordinator.analysis.CohortReport;
import io.busload.coordinator.analysis.HistoryAnnotations;
import io.busload.coordinator.analysis.UnknownId;
import io.busload.coordinator.store.AgentStore;
import io.busload.coordinator.store.ComparisonStore;
import io.busload.coordinator.store.VerdictStore;
import io.busload.protocol.JsonCodec;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.UUID;
import java.util.concurrent.Callable;

/**
 * The verdicts' REST resources (docs/contract.md), one {@link ApiResource} of {@link RestApi}'s list (writes pass its
 * token check first; a {@link BadInput} becomes its 400 problem). What they answer is worked out in the coordinator's
 * analysis ({@link AbVerdicts}, {@link HistoryAnnotations}, {@link AcceptedChanges}, {@link CohortReport}), on the
 * analysis {@code pool}; this reads the requests and writes the answers:
 * <ul>
 *   <li>{@code GET /api/verdicts}: two sweeps or devices compared kernel by kernel on their raw samples;
 *   <li>{@code GET /api/change-points}: level shifts E-Divisive found on arrival;
 *   <li>{@code GET /api/history/annotations}: for one kernel case, per device, the change points of its whole history,
 *       the z-score's regressions and the accepted marks (what the History view draws on its chart);
 *   <li>{@code POST, GET /api/accepted-changes}: operators' marks that restart a baseline (who, why);
 *   <li>{@code GET /api/cohort-flags}: devices outside their cohort's band.
 * </ul>
 */
public record VerdictResource(AbVerdicts abVerdicts, VerdictStore verdicts, HistoryAnnotations annotations,
    AcceptedChanges acceptedChanges, Clock clock, AnalysisPool pool,
    RecentAnswers<AnnotationsQuestion, Buffer> recentAnnotations) implements ApiResource {

  /**
   * Every read on the analysis {@code pool}; the annotations of all devices, which anyone may ask for and which cost
   * E-Divisive over every device's history, computed once per question at a time and served again for
   * {@code annotationsTtl}.
   */
  public VerdictResource(Vertx vertx, AgentStore agents, ComparisonStore analysis, VerdictStore verdicts, Clock clock,
      AnalysisPool pool, Duration annotationsTtl) {
    this(new AbVerdicts(verdicts), verdicts, new HistoryAnnotations(verdicts, analysis),
        new AcceptedChanges(vertx.eventBus(), agents, verdicts, clock), clock, pool, new RecentAnswers<>(annotationsTtl, System::nanoTime));
  }

  /** What an annotations request asks; {@code device} null for every device of the kernel case. */
  record AnnotationsQuestion(String kernel, String params, String device) {}

  /** The body of {@code POST /api/accepted-changes}: every field a string (a number is no device). */
  record AcceptBody(String device, String kernel, String params, String from, String why, String by) {}

  static final int MAX_REASON = 2000;
  private static final String ACCEPT_SHAPE = "a JSON object {\"device\", \"kernel\", \"params\", \"from\", \"why\"}";

  @Override
  public void mount(Mounts api) {
    api.at("/api/verdicts").get("/").handler(this::verdicts);
    api.at("/api/change-points").get("/").handler(this::changePoints);
    api.at("/api/history/annotations").get("/").handler(this::annotations);
    api.collection("/api/accepted-changes", this::accept, this::accepted);
    api.at("/api/cohort-flags").get("/").handler(this::cohortFlags);
  }

  // ---- A/B verdicts

  private void verdicts(RoutingContext ctx) {
    String baseline = required(ctx, "baseline", "a sweep id or a device id (sweep:ID or device:ID to say which)");
    String candidate = required(ctx, "candidate", "a sweep id or a device id (sweep:ID or device:ID to say which)");
    double threshold = threshold(Requests.param(ctx, "threshold"));
    blocking(() -> abVerdicts.compare(baseline, candidate, threshold)).onSuccess(body -> json(ctx, 200, body))
        .onFailure(ctx::fail);
  }

  private static double threshold(String text) {
    if (text == null) {
      return Thresholds.DEFAULT_MIN_SHIFT;
    }
    try {
      double value = text.endsWith("%") ? Double.parseDouble(text.substring(0, text.length() - 1)) / 100
          : Double.parseDouble(text);
      if (!(value >= 0 && value < 1)) {
        throw new BadInput("threshold", "must be from 0 to below 1 (0.01 or 1% is one percent), got " + text);
      }
      return value;
    } catch (NumberFormatException e) {
      throw new BadInput("threshold", "not a number: '" + text + "' (0.01 or 1%)");
    }
  }

  // ---- change points

  private void changePoints(RoutingContext ctx) {
    int limit = Requests.limit(ctx);
    String device = Requests.param(ctx, "device");
    String kernel = Requests.param(ctx, "kernel");
    String params = Requests.param(ctx, "params");
    blocking(() -> verdicts.changePoints(device, kernel, params, limit).stream().map(VerdictResource::view).toList())
        .onSuccess(body -> json(ctx, 200, body)).onFailure(ctx::fail);
  }

  /** A stored change point with its verdict as JSON, not as a string of JSON. */
  record ChangePointView(UUID id, String deviceId, String model, String kernel, String params, String kind,
      UUID firstResultId, UUID announcedResultId, double beforeMedian, double afterMedian, double changeFraction,
      double noiseSigma, double pValue, JsonNode verdict, Instant measuredAt, Instant detectedAt) {}

  static ChangePointView view(VerdictStore.StoredChangePoint c) {
    JsonNode verdict;
    try {
      verdict = JsonCodec.MAPPER.readTree(c.verdictJson());
    } catch (IOException e) {
      verdict = null;
    }
    return new ChangePointView(c.id(), c.deviceId(), c.model(), c.kernel(), c.params(), c.kind(), c.firstResultId(),
        c.announcedResultId(), c.beforeMedian(), c.afterMedian(), c.changeFraction(), c.noiseSigma(), c.pValue(),
        verdict, c.measuredAt(), c.detectedAt());
  }

  // ---- annotations for the History view

  private void annotations(RoutingContext ctx) {
    String kernel = required(ctx, "kernel", "name a kernel such as stride-copy-fp32");
    String params = required(ctx, "params", "the kernel's parameters as results show them, such as size=1024;stride=4");
    String device = Requests.param(ctx, "device");
    // Encoded once, on the worker: a crowd served from the cache costs the event loop a write each, not an encoding.
    recentAnnotations.get(new AnnotationsQuestion(kernel, params, device),
        () -> blocking(() -> Buffer.buffer(JsonCodec.toJson(annotations.of(kernel, params, device)))))
        .onSuccess(body -> ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, Replies.JSON).end(body.copy()))
        .onFailure(ctx::fail);
  }

  // ---- accepted changes

  private void accept(RoutingContext ctx) {
    String who = ctx.<ApiTokens.Caller>get(ApiAuth.CALLER).name();
    AcceptBody body = Requests.bodyAs(ctx, AcceptBody.class, ACCEPT_SHAPE);
    String device = text("device", body.device());
    if (device == null) {
      throw new BadInput("device", "missing; the device whose baseline restarts, such as host/cuda:0");
    }
    String why = text("why", body.why());
    if (why == null) {
      throw new BadInput("why", "missing: say why the change is accepted (a new driver, a replaced card)");
    }
    if (why.length() > MAX_REASON) {
      throw new BadInput("why", "at most " + MAX_REASON + " characters, got " + why.length());
    }
    String by = text("by", body.by());
    if (by != null && by.length() > 200) {
      throw new BadInput("by", "at most 200 characters, got " + by.length());
    }
    String kernel = text("kernel", body.kernel());
    String params = text("params", body.params());
    if (params != null && kernel == null) {
      throw new BadInput("params", "params need a kernel");
    }
    Instant from = instant("from", text("from", body.from()));
    // The token is who the coordinator knows; "by" is the person a client (the dashboard) says it acts for.
    String acceptedBy = by == null ? who : by + " via " + who;
    blocking(() -> acceptedChanges.accept(device, kernel, params, from, acceptedBy, why)).onSuccess(stored -> {
      // The annotations kept for a while must show the new mark to whoever asks next, its author first.
      recentAnnotations.forget();
      ctx.response().putHeader(HttpHeaders.LOCATION, "/api/accepted-changes?device=" + device);
      json(ctx, 201, stored);
    }).onFailure(ctx::fail);
  }

  private void accepted(RoutingContext ctx) {
    int limit = Requests.limit(ctx);
    String device = Requests.param(ctx, "device");
    String kernel = Requests.param(ctx, "kernel");
    String params = Requests.param(ctx, "params");
    blocking(() -> acceptedChanges.list(device, kernel, params, limit)).onSuccess(body -> json(ctx, 200, body))
        .onFailure(ctx::fail);
  }

  // ---- cohort flags

  private void cohortFlags(RoutingContext ctx) {
    String device = Requests.param(ctx, "device");
    String daysText = Requests.param(ctx, "days");
    int days;
    try {
      days = daysText == null ? 30 : Integer.parseInt(daysText);
    } catch (NumberFormatException e) {
      throw new BadInput("days", "not a whole number: '" + daysText + "'");
    }
    if (days < 1 || days > 3650) {
      throw new BadInput("days", "must be between 1 and 3650, got " + days);
    }
    blocking(() -> CohortReport.of(verdicts, clock.instant(), days, device))
        .onSuccess(body -> json(ctx, 200, body)).onFailure(ctx::fail);
  }

  // ---- shared

  /** A body's string field, trimmed; null when absent or blank. */
  private static String text(String field, String value) {
    if (value == null) {
      return null;
    }
    String text = value.strip();
    if (text.indexOf('\u0000') >= 0) {
      throw new BadInput(field, "must not contain NUL characters");
    }
    return text.isEmpty() ? null : text;
  }

  /** An ISO-8601 instant of a body, or null when absent. */
  private static Instant instant(String field, String text) {
    if (text == null) {
      return null;
    }
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      throw new BadInput(field, "not an ISO-8601 instant such as 2026-11-01T00:00:00Z: '" + text + "'");
    }
  }

  private static String required(RoutingContext ctx, String name, String what) {
    return Requests.required(ctx, name, "missing; " + what);
  }

  private static void json(RoutingContext ctx, int status, Object body) {
    Replies.json(ctx.response(), status, body);
  }

  /** {@code work} on the analysis pool; an id it finds unknown is bad input naming the parameter that gave it. */
  private <T> Future<T> blocking(Callable<T> work) {
    return pool.run(() -> {
      try {
        return work.call();
      } catch (UnknownId e) {
        throw new BadInput(e.role(), e.getMessage());
      }
    });
  }
}
