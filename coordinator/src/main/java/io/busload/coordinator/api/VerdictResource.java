package io.busload.coordinator.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.analysis.changepoint.ChangePoint;
import io.busload.analysis.changepoint.EDivisive;
import io.busload.analysis.cohort.CohortCheck;
import io.busload.analysis.cohort.CohortFlag;
import io.busload.analysis.cohort.DeviceFigure;
import io.busload.analysis.verdict.AbTest;
import io.busload.analysis.verdict.Comparison;
import io.busload.analysis.verdict.Setting;
import io.busload.analysis.verdict.Side;
import io.busload.analysis.verdict.Thresholds;
import io.busload.analysis.verdict.Verdict;
import io.busload.coordinator.analysis.ClockConditions;
import io.busload.coordinator.analysis.CohortFigures;
import io.busload.coordinator.analysis.RegressionWatch;
import io.busload.coordinator.store.ComparisonStore;
import io.busload.coordinator.store.Params;
import io.busload.coordinator.store.AgentStore;
import io.busload.coordinator.store.VerdictStore.AcceptedChange;
import io.busload.coordinator.store.VerdictStore.Point;
import io.busload.coordinator.store.VerdictStore;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import io.busload.protocol.MeasuredBy;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;

/**
 * The verdicts' REST resources (docs/contract.md), one {@link ApiResource} of {@link RestApi}'s list (writes pass its
 * token check first; a {@link BadInput} becomes its 400 problem):
 * <ul>
 *   <li>{@code GET /api/verdicts}: two sweeps or devices compared kernel by kernel on their raw samples;
 *   <li>{@code GET /api/change-points}: level shifts E-Divisive found on arrival;
 *   <li>{@code GET /api/history/annotations}: for one kernel case, per device, the change points of its whole history,
 *       the z-score's regressions and the accepted marks (what the History view draws on its chart);
 *   <li>{@code POST, GET /api/accepted-changes}: operators' marks that restart a baseline (who, why);
 *   <li>{@code GET /api/cohort-flags}: devices outside their cohort's band.
 * </ul>
 */
public record VerdictResource(Vertx vertx, AgentStore agents, ComparisonStore analysis, VerdictStore verdicts, Clock clock,
    AnalysisPool pool, RecentAnswers<AnnotationsQuestion, Buffer> recentAnnotations)
    implements ApiResource {

  /**
   * Every read on the analysis {@code pool}; the annotations of all devices, which anyone may ask for and which cost
   * E-Divisive over every device's history, computed once per question at a time and served again for
   * {@code annotationsTtl}.
   */
  public VerdictResource(Vertx vertx, AgentStore agents, ComparisonStore analysis, VerdictStore verdicts, Clock clock,
      AnalysisPool pool, Duration annotationsTtl) {
    this(vertx, agents, analysis, verdicts, clock, pool, new RecentAnswers<>(annotationsTtl, System::nanoTime));
  }

  /** What an annotations request asks; {@code device} null for every device of the kernel case. */
  record AnnotationsQuestion(String kernel, String params, String device) {}

  static final int MAX_REASON = 2000;
  /** Points of one device's history the whole-history change points are found in (the newest). */
  static final int ANNOTATED_POINTS = 400;
  /** Later than any result: "before this" means all of them (PostgreSQL holds it; Instant.MAX it does not). */
  private static final Instant FAR_FUTURE = Instant.parse("9999-12-31T00:00:00Z");

  @Override
  public void mount(Mounts api) {
    api.at("/api/verdicts").get("/").handler(this::verdicts);
    api.at("/api/change-points").get("/").handler(this::changePoints);
    api.at("/api/history/annotations").get("/").handler(this::annotations);
    var accepted = api.at("/api/accepted-changes");
    accepted.post("/").handler(Requests.body()).handler(this::accept);
    accepted.get("/").handler(this::accepted);
    api.at("/api/cohort-flags").get("/").handler(this::cohortFlags);
  }

  // ---- A/B verdicts

  /** One kernel case of a REST comparison. */
  record VerdictRow(String kernel, String params, Verdict verdict, String reason, Double baselineMedian,
      Double candidateMedian, Double relative, Double relativeLower, Double relativeUpper, Double pValue,
      int baselineSamples, int candidateSamples, List<String> notes, UUID baselineResultId, UUID candidateResultId) {}

  record Verdicts(String baseline, String candidate, double threshold, Map<Verdict, Integer> counts,
      List<VerdictRow> rows, List<String> onlyBaseline, List<String> onlyCandidate) {}

  private void verdicts(RoutingContext ctx) {
    String baseline = required(ctx, "baseline", "a sweep id or a device id (sweep:ID or device:ID to say which)");
    String candidate = required(ctx, "candidate", "a sweep id or a device id (sweep:ID or device:ID to say which)");
    double threshold = threshold(Requests.param(ctx, "threshold"));
    blocking(() -> {
      Map<String, KernelResult> before = newest(side("baseline", baseline));
      Map<String, KernelResult> after = newest(side("candidate", candidate));
      Instant samplesKeptSince = verdicts.samplesDroppedBefore().orElse(null);
      Thresholds thresholds = Thresholds.withMinShift(threshold);
      List<VerdictRow> rows = new ArrayList<>();
      Map<Verdict, Integer> counts = new EnumMap<>(Verdict.class);
      for (Map.Entry<String, KernelResult> e : before.entrySet()) {
        KernelResult b = e.getValue();
        KernelResult c = after.get(e.getKey());
        if (c == null) {
          continue;
        }
        Comparison v = AbTest.compare(side(b, samplesKeptSince), side(c, samplesKeptSince), thresholds);
        counts.merge(v.verdict(), 1, Integer::sum);
        rows.add(new VerdictRow(b.kernel(), Params.text(b.params()), v.verdict(), v.reason(), v.baselineMedian(),
            v.candidateMedian(), v.relative(), v.relativeLower(), v.relativeUpper(),
            v.shift() == null ? null : v.shift().pValue(), v.baselineCount(), v.candidateCount(), v.notes(), b.id(),
            c.id()));
      }
      return new Verdicts(baseline, candidate, threshold, counts, rows,
          before.keySet().stream().filter(k -> !after.containsKey(k)).toList(),
          after.keySet().stream().filter(k -> !before.containsKey(k)).toList());
    }).onSuccess(body -> json(ctx, 200, body)).onFailure(ctx::fail);
  }

  /**
   * A result's side of a comparison: bandwidth per sample, and what it was measured with. A valid result without
   * samples that was measured before {@code samplesKeptSince} (null: no samples were ever aged out) lost them to the
   * retention, and its side says so; its stored summary is no stand-in for the samples the test needs.
   */
  static Side side(KernelResult r, Instant samplesKeptSince) {
    String problem = r.valid() ? null : r.mismatches().isEmpty() ? r.method() : r.mismatches().getFirst();
    Setting setting = new Setting(r.device().name(), r.device().fingerprint(), r.device().driverVersion(),
        r.agentVersion(), r.fatbinHash(), ClockConditions.of(r));
    MeasuredBy tool = r.origin() == null ? null : r.origin().measuredBy();
    if (r.valid() && r.samples().isEmpty() && tool != null) {
      return Side.unusable(r.id().toString(), setting, "was measured by " + tool.describe() + ", whose output carries"
          + " no samples (only its " + tool.centre() + ", min and max): History and change points use those; a"
          + " verdict needs samples on each side");
    }
    if (r.valid() && r.samples().isEmpty() && samplesKeptSince != null && r.measuredAt().isBefore(samplesKeptSince)) {
      return Side.unusable(r.id().toString(), setting, "has no raw samples any more: the sample retention dropped"
          + " those of results measured before " + samplesKeptSince + " (its median, spread and clocks are kept;"
          + " compare results measured since)");
    }
    return Side.ofResult(r.id().toString(), setting, r.valid(), problem, r.samples(), r.bytes());
  }

  private List<KernelResult> side(String field, String id) {
    if (id.startsWith("sweep:")) {
      return sweep(field, id.substring("sweep:".length()));
    }
    if (id.startsWith("device:")) {
      return device(field, id.substring("device:".length()));
    }
    List<KernelResult> asSweep = verdicts.sweepResults(id);
    if (!asSweep.isEmpty()) {
      return asSweep;
    }
    List<KernelResult> asDevice = verdicts.deviceLatest(id);
    if (asDevice.isEmpty()) {
      throw new BadInput(field, "unknown sweep or device '" + id + "' (no results under that id)");
    }
    return asDevice;
  }

  private List<KernelResult> sweep(String field, String id) {
    List<KernelResult> found = verdicts.sweepResults(id);
    if (found.isEmpty()) {
      throw new BadInput(field, "unknown sweep '" + id + "' (or one without results yet)");
    }
    return found;
  }

  private List<KernelResult> device(String field, String id) {
    List<KernelResult> found = verdicts.deviceLatest(id);
    if (found.isEmpty()) {
      throw new BadInput(field, "unknown device '" + id + "' (no results)");
    }
    return found;
  }

  private static Map<String, KernelResult> newest(List<KernelResult> results) {
    Map<String, KernelResult> newest = new LinkedHashMap<>();
    for (KernelResult r : results) {
      newest.merge(r.kernel() + " " + Params.text(r.params()), r,
          (a, b) -> b.measuredAt().isAfter(a.measuredAt()) ? b : a);
    }
    return newest;
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

  /** A level shift over a device's whole history (E-Divisive offline, the baseline restarting at accepted marks). */
  record HistoryChange(UUID resultId, Instant measuredAt, double before, double after, double relativeShift,
      double pValue) {}

  /** A z-score regression or improvement recorded on arrival. */
  record HistoryAlarm(UUID resultId, Instant measuredAt, String kind, double changeFraction) {}

  record DeviceAnnotations(String deviceId, int points, List<HistoryChange> changePoints, List<HistoryAlarm> regressions,
      List<AcceptedChange> accepted) {}

  private void annotations(RoutingContext ctx) {
    String kernel = required(ctx, "kernel", "name a kernel such as stride-copy-fp32");
    String params = required(ctx, "params", "the kernel's parameters as results show them, such as size=1024;stride=4");
    String device = Requests.param(ctx, "device");
    recentAnnotations.get(new AnnotationsQuestion(kernel, params, device), () -> blocking(() -> {
      List<String> devices = device == null ? verdicts.devicesOf(kernel, params) : List.of(device);
      EDivisive detector = new EDivisive(EDivisive.Settings.defaults());
      List<DeviceAnnotations> out = new ArrayList<>();
      for (String d : devices) {
        List<Point> points = verdicts.series(d, kernel, params, null, FAR_FUTURE, ANNOTATED_POINTS).reversed();
        List<AcceptedChange> marks = verdicts.accepted(d, kernel, params, 1000);
        List<HistoryChange> changes = new ArrayList<>();
        // Each stretch between accepted marks is its own history: the baseline restarts at a mark.
        List<Instant> cuts = marks.stream().map(AcceptedChange::from).sorted().toList();
        int from = 0;
        for (int cut = 0; cut <= cuts.size(); cut++) {
          int to = from;
          while (to < points.size() && (cut == cuts.size() || points.get(to).measuredAt().isBefore(cuts.get(cut)))) {
            to++;
          }
          List<Point> stretch = points.subList(from, to);
          double[] values = stretch.stream().mapToDouble(Point::bandwidth).toArray();
          for (ChangePoint c : detector.detect(values)) {
            Point first = stretch.get((int) c.index());
            changes.add(new HistoryChange(first.resultId(), first.measuredAt(), c.before(), c.after(),
                c.relativeShift(), c.pValue()));
          }
          from = to;
        }
        List<HistoryAlarm> alarms = analysis.changes(d, kernel, null, 10_000).stream()
            .filter(ch -> ch.params().equals(params))
            .map(ch -> new HistoryAlarm(ch.resultId(), ch.measuredAt(), ch.kind().name(), ch.changeFraction()))
            .toList();
        out.add(new DeviceAnnotations(d, points.size(), changes, alarms, marks));
      }
      // Encoded once, on the worker: a crowd served from the cache costs the event loop a write each, not an encoding.
      return Buffer.buffer(JsonCodec.toJson(out));
    })).onSuccess(body -> ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, Replies.JSON).end(body.copy()))
        .onFailure(ctx::fail);
  }

  // ---- accepted changes

  private void accept(RoutingContext ctx) {
    String who = ctx.<ApiTokens.Caller>get(ApiAuth.CALLER).name();
    JsonNode body;
    try {
      Buffer buffer = ctx.body().buffer();
      body = buffer == null ? null : JsonCodec.MAPPER.readTree(buffer.getBytes());
    } catch (IOException e) {
      throw new BadInput("body", "not JSON: " + e.getMessage().lines().findFirst().orElse(""));
    }
    if (body == null || !body.isObject()) {
      throw new BadInput("body", "a JSON object {\"device\", \"kernel\", \"params\", \"from\", \"why\"}");
    }
    String device = text(body, "device");
    if (device == null) {
      throw new BadInput("device", "missing; the device whose baseline restarts, such as host/cuda:0");
    }
    String why = text(body, "why");
    if (why == null) {
      throw new BadInput("why", "missing: say why the change is accepted (a new driver, a replaced card)");
    }
    if (why.length() > MAX_REASON) {
      throw new BadInput("why", "at most " + MAX_REASON + " characters, got " + why.length());
    }
    String by = text(body, "by");
    if (by != null && by.length() > 200) {
      throw new BadInput("by", "at most 200 characters, got " + by.length());
    }
    String kernel = text(body, "kernel");
    String params = text(body, "params");
    if (params != null && kernel == null) {
      throw new BadInput("params", "params need a kernel");
    }
    Instant from = clock.instant();
    String fromText = text(body, "from");
    if (fromText != null) {
      try {
        from = Instant.parse(fromText);
      } catch (DateTimeParseException e) {
        throw new BadInput("from", "not an ISO-8601 instant such as 2026-11-01T00:00:00Z: '" + fromText + "'");
      }
    }
    // The token is who the coordinator knows; "by" is the person a client (the dashboard) says it acts for.
    AcceptedChange mark = new AcceptedChange(UUID.randomUUID(), device, kernel, params, from,
        by == null ? who : by + " via " + who, why, clock.instant());
    blocking(() -> {
      if (!deviceKnown(device)) {
        throw new BadInput("device", "unknown device '" + device + "'");
      }
      verdicts.insertAccepted(mark);
      return mark;
    }).onSuccess(stored -> {
      // The annotations kept for a while must show the new mark to whoever asks next, its author first.
      recentAnnotations.forget();
      vertx.eventBus().publish(RegressionWatch.ACCEPTED_CHANGES, new JsonObject().put("device", device)
          .put("kernel", kernel).put("params", params));
      ctx.response().putHeader(HttpHeaders.LOCATION, "/api/accepted-changes?device=" + device);
      json(ctx, 201, stored);
    }).onFailure(ctx::fail);
  }

  private boolean deviceKnown(String device) {
    return agents.devices().stream().anyMatch(d -> d.id().equals(device));
  }

  private void accepted(RoutingContext ctx) {
    int limit = Requests.limit(ctx);
    String device = Requests.param(ctx, "device");
    String kernel = Requests.param(ctx, "kernel");
    String params = Requests.param(ctx, "params");
    blocking(() -> verdicts.accepted(device, kernel, params, limit)).onSuccess(body -> json(ctx, 200, body))
        .onFailure(ctx::fail);
  }

  // ---- cohort flags

  record CohortFlags(CohortCheck.Settings settings, int days, int resultsPerFigure, int figures,
      List<CohortFlag> flags) {}

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
    CohortCheck check = new CohortCheck(CohortCheck.Settings.defaults());
    blocking(() -> {
      List<DeviceFigure> figures = CohortFigures.since(verdicts, clock.instant().minus(Duration.ofDays(days)));
      List<CohortFlag> flags = check.flags(figures).stream().filter(f -> device == null || f.deviceId().equals(device))
          .toList();
      return new CohortFlags(check.settings(), days, CohortFigures.RESULTS_PER_FIGURE, figures.size(), flags);
    }).onSuccess(body -> json(ctx, 200, body)).onFailure(ctx::fail);
  }

  // ---- shared

  private static String text(JsonNode body, String field) {
    JsonNode value = body.get(field);
    if (value == null || value.isNull()) {
      return null;
    }
    if (!value.isTextual()) {
      throw new BadInput(field, "must be a string");
    }
    String text = value.asText().strip();
    if (text.indexOf('\u0000') >= 0) {
      throw new BadInput(field, "must not contain NUL characters");
    }
    return text.isEmpty() ? null : text;
  }

  private static String required(RoutingContext ctx, String name, String what) {
    return Requests.required(ctx, name, "missing; " + what);
  }

  private static void json(RoutingContext ctx, int status, Object body) {
    Replies.json(ctx.response(), status, body);
  }

  private <T> Future<T> blocking(Callable<T> work) {
    return pool.run(work);
  }
}
