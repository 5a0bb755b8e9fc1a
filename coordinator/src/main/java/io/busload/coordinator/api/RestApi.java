package io.busload.coordinator.api;

import io.busload.coordinator.fleet.Fleet;
import io.busload.coordinator.fleet.RunQueues;
import io.busload.coordinator.schedule.Cron;
import io.busload.coordinator.schedule.Scheduler;
import io.busload.coordinator.store.Analysis;
import io.busload.coordinator.store.ResultQuery;
import io.busload.coordinator.store.Schedule;
import io.busload.coordinator.store.Schedules;
import io.busload.coordinator.store.RunState;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.micrometer.core.instrument.Counter;
import io.busload.coordinator.LogEvery;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import io.busload.coordinator.store.StoredResult;
import io.busload.coordinator.store.ViewQueries;
import io.busload.coordinator.store.AgentStore;
import io.busload.coordinator.store.ResultStore;
import io.busload.coordinator.store.SweepStore;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The routes of docs/contract.md (REST). Handlers run on the coordinator's event loop; the store on workers. */
public final class RestApi {
  private static final Logger LOG = LoggerFactory.getLogger(RestApi.class);
  /** A sweep request is a few hundred bytes; a megabyte leaves room for long device lists and no more. */
  public static final long BODY_LIMIT = 1024 * 1024;
  static final int DEFAULT_RESULT_LIMIT = 1000;
  static final int MAX_RESULT_LIMIT = 1_000_000;
  static final int DEFAULT_SWEEP_LIMIT = 100;
  /** A history chart's points: years of nightly runs of dozens of devices, still a chart a browser draws at once. */
  static final int MAX_HISTORY_POINTS = 20_000;
  /** Rows read per store call while streaming results. */
  static final int PAGE = 2000;
  private static final String JSON = "application/json";
  private static final String CSV = "text/csv; charset=utf-8";

  private final Vertx vertx;
  private final AgentStore agents;
  private final SweepStore sweeps;
  private final ResultStore results;
  private final Fleet fleet;
  private final RunQueues queues;
  private final Clock clock;
  private final Schedules schedules;
  private final Analysis analysis;
  private final ViewQueries views;
  private final PrometheusMeterRegistry metrics;
  private final Counter refusedWrites;
  private final LogEvery refusedWritesLog = new LogEvery(java.time.Duration.ofSeconds(10));
  private final ApiTokens tokens;

  public RestApi(Vertx vertx, AgentStore agents, SweepStore sweeps, ResultStore results, Fleet fleet, RunQueues queues,
      Clock clock, Schedules schedules, Analysis analysis, ViewQueries views, PrometheusMeterRegistry metrics,
      ApiTokens tokens) {
    this.tokens = tokens;
    this.schedules = schedules;
    this.analysis = analysis;
    this.views = views;
    this.metrics = metrics;
    this.refusedWrites = Counter.builder("busload_api_writes_refused")
        .description("REST writes refused for want of a valid API token").register(metrics);
    this.vertx = vertx;
    this.agents = agents;
    this.sweeps = sweeps;
    this.results = results;
    this.fleet = fleet;
    this.queues = queues;
    this.clock = clock;
  }

  public Router router() {
    Router router = Router.router(vertx);
    // First, before any body is read: an unauthenticated write costs the coordinator no parsing and no store call.
    router.route().method(HttpMethod.POST).method(HttpMethod.PUT).method(HttpMethod.PATCH).method(HttpMethod.DELETE)
        .handler(this::authenticate);
    router.get("/api/agents").handler(this::agents);
    router.post("/api/sweeps")
        .handler(BodyHandler.create(false).setBodyLimit(BODY_LIMIT))
        .handler(this::createSweep);
    router.get("/api/sweeps").handler(this::sweeps);
    router.get("/api/sweeps/:id").handler(this::sweep);
    router.get("/api/results").handler(this::results);
    router.get("/api/results/latest").handler(this::latestResults);
    router.get("/api/kernels").handler(ctx -> blocking(views::kernels)
        .onSuccess(pairs -> json(ctx.response(), 200, pairs)).onFailure(ctx::fail));
    router.get("/api/history").handler(this::history);
    router.get("/api/openapi.yaml").handler(this::openApi);
    router.get("/metrics").handler(ctx -> ctx.response().putHeader(HttpHeaders.CONTENT_TYPE,
        "text/plain; version=0.0.4; charset=utf-8").end(metrics.scrape()));
    router.get("/api/devices").handler(this::devices);
    router.get("/api/runs").handler(this::runs);
    router.get("/api/runs/:id").handler(this::run);
    router.post("/api/schedules").handler(BodyHandler.create(false).setBodyLimit(BODY_LIMIT))
        .handler(this::createSchedule);
    router.get("/api/schedules").handler(this::listSchedules);
    router.get("/api/schedules/:id").handler(this::getSchedule);
    router.put("/api/schedules/:id").handler(BodyHandler.create(false).setBodyLimit(BODY_LIMIT))
        .handler(this::updateSchedule);
    router.post("/api/schedules/:id/pause").handler(ctx -> setPaused(ctx, true));
    router.post("/api/schedules/:id/resume").handler(ctx -> setPaused(ctx, false));
    router.delete("/api/schedules/:id").handler(this::deleteSchedule);
    router.get("/api/comparisons").handler(this::comparison);
    router.get("/api/regressions").handler(this::regressions);
    router.route("/api/*").failureHandler(this::failure);
    router.errorHandler(404, ctx -> problem(ctx.response(), 404, "Not Found", "no such resource: " + ctx.request().path(), null));
    router.errorHandler(405, ctx -> problem(ctx.response(), 405, "Method Not Allowed",
        ctx.request().method() + " is not allowed on " + ctx.request().path(), null));
    router.errorHandler(413, ctx -> problem(ctx.response(), 413, "Content Too Large",
        "the body is larger than " + BODY_LIMIT + " bytes", "body"));
    return router;
  }

  /**
   * Writes need a bearer token of the tokens file; reads stay open (viewing is open on a lab's network). The
   * header is never logged or echoed, whatever it holds.
   */
  private void authenticate(RoutingContext ctx) {
    Optional<String> name = tokens.check(ctx.request().getHeader(HttpHeaders.AUTHORIZATION));
    if (name.isEmpty()) {
      refusedWrites.increment();
      String method = ctx.request().method().name();
      String path = ctx.request().path();
      Object from = ctx.request().remoteAddress();
      refusedWritesLog.count("refused", n -> LOG.warn("{} write(s) refused for want of a valid API token, latest: {} {}"
          + " from {}", n, method, path, from));
      ctx.response().putHeader("WWW-Authenticate", "Bearer realm=\"busload\"");
      problem(ctx.response(), 401, "Unauthorized",
          "writes need an API token: send Authorization: Bearer <token> (tokens file: see the coordinator's settings)",
          "Authorization");
      return;
    }
    LOG.debug("{} {} by token '{}'", ctx.request().method(), ctx.request().path(), name.get());
    ctx.next();
  }

  private void agents(RoutingContext ctx) {
    json(ctx.response(), 200, fleet.view(clock.instant()));
  }

  private void createSweep(RoutingContext ctx) {
    Buffer body = ctx.body().buffer();
    NewSweep request = NewSweep.parse(body == null ? null : body.getBytes(), new NewSweep.Devices() {
      @Override
      public Optional<String> agentOf(String deviceId) {
        return fleet.agentOf(deviceId);
      }

      @Override
      public List<String> online() {
        return fleet.onlineDevices(clock.instant());
      }

      @Override
      public java.util.Collection<String> known() {
        return fleet.devices();
      }
    });
    blocking(() -> sweeps.createSweep(request.suite(), request.options(), request.targets(), clock.instant()))
        .onSuccess(sweep -> {
          LOG.info("sweep {}: suite {} on {}", sweep.id(), sweep.suite(),
              sweep.runs().stream().map(r -> r.deviceId()).toList());
          ctx.response().putHeader(HttpHeaders.LOCATION, "/api/sweeps/" + sweep.id());
          json(ctx.response(), 201, SweepViews.Created.of(sweep));
          queues.wake(sweep.runs().stream().map(r -> r.deviceId()).toList());
        })
        .onFailure(ctx::fail);
  }

  private void sweeps(RoutingContext ctx) {
    int limit = intParam(ctx, "limit", DEFAULT_SWEEP_LIMIT, 10_000);
    blocking(() -> sweeps.sweeps(limit))
        .onSuccess(list -> json(ctx.response(), 200, list.stream().map(SweepViews.SweepView::of).toList()))
        .onFailure(ctx::fail);
  }

  private void sweep(RoutingContext ctx) {
    String id = pathId(ctx);
    blocking(() -> sweeps.sweep(id)).onSuccess(found -> {
      if (found.isPresent()) {
        json(ctx.response(), 200, SweepViews.SweepView.of(found.get()));
      } else {
        problem(ctx.response(), 404, "Not Found", "unknown sweep '" + id + "'", "id");
      }
    }).onFailure(ctx::fail);
  }

  private enum Format { JSON, CSV }

  private void results(RoutingContext ctx) {
    ResultQuery query = new ResultQuery(param(ctx, "sweepId"), param(ctx, "device"), param(ctx, "model"),
        param(ctx, "kernel"), param(ctx, "params"), instantParam(ctx, "from"), instantParam(ctx, "to"),
        intParam(ctx, "limit", DEFAULT_RESULT_LIMIT, MAX_RESULT_LIMIT));
    Format format = format(ctx);
    String after = param(ctx, "after");
    UUID afterId = null;
    if (after != null) {
      try {
        afterId = UUID.fromString(after);
      } catch (IllegalArgumentException e) {
        throw new BadInput("after", "not a result id (UUID): '" + after + "'");
      }
    }
    UUID key = afterId;
    HttpServerResponse response = ctx.response();
    Future<Optional<StoredResult>> start = key == null ? Future.succeededFuture(Optional.empty())
        : blocking(() -> results.resultKey(key));
    start.onSuccess(found -> {
      if (key != null && found.isEmpty()) {
        problem(response, 400, "Bad Request", "unknown result id '" + key + "'", "after");
        return;
      }
      page(ctx, response, query, format, found.orElse(null), query.limit(), true);
    }).onFailure(ctx::fail);
  }

  private void openApi(RoutingContext ctx) {
    try (var in = RestApi.class.getResourceAsStream("/openapi.yaml")) {
      ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, "application/yaml; charset=utf-8")
          .end(Buffer.buffer(in.readAllBytes()));
    } catch (java.io.IOException | NullPointerException e) {
      ctx.fail(new IllegalStateException("openapi.yaml missing from the coordinator jar", e));
    }
  }

  /**
   * Every known device, or with {@code ?target=KIND&value=V} those a schedule with that target would run on (the
   * same matching, so a lab can preview a label before it schedules by it).
   */
  private void devices(RoutingContext ctx) {
    String kind = param(ctx, "target");
    Schedule.Target target = kind == null ? null
        : ScheduleRequest.target(kind, param(ctx, "value"), "target", "value");
    blocking(agents::devices).onSuccess(devices -> json(ctx.response(), 200,
        (target == null ? devices : Scheduler.matching(devices, target)).stream()
            .map(d -> new DeviceRow(d.id(), d.agentId(), d.host(), d.labels(), d.model(), d.fingerprint(),
                fleet.online(d.agentId(), clock.instant()), d.lastSeen(), d.info()))
            .toList())).onFailure(ctx::fail);
  }

  record DeviceRow(String id, String agentId, String host, List<String> labels, String model, String fingerprint,
      boolean online, Instant lastSeen, io.busload.protocol.DeviceInfo info) {}

  private static final java.util.Set<String> RUN_STATES = java.util.Arrays.stream(RunState.values())
      .map(Enum::name).collect(java.util.stream.Collectors.toCollection(java.util.TreeSet::new));

  private void runs(RoutingContext ctx) {
    String state = param(ctx, "state");
    if (state != null && !RUN_STATES.contains(state.toUpperCase(Locale.ROOT))) {
      throw new BadInput("state", "unknown state '" + state + "'; known: " + String.join(", ", RUN_STATES));
    }
    String device = param(ctx, "device");
    int limit = intParam(ctx, "limit", DEFAULT_SWEEP_LIMIT, 10_000);
    RunState wanted = state == null ? null : RunState.valueOf(state.toUpperCase(Locale.ROOT));
    blocking(() -> sweeps.runs(device, wanted, limit))
        .onSuccess(runs -> json(ctx.response(), 200, runs))
        .onFailure(ctx::fail);
  }

  private void run(RoutingContext ctx) {
    String id = pathId(ctx);
    blocking(() -> sweeps.run(id)).onSuccess(found -> {
      if (found.isPresent()) {
        json(ctx.response(), 200, found.get());
      } else {
        problem(ctx.response(), 404, "Not Found", "unknown run '" + id + "'", "id");
      }
    }).onFailure(ctx::fail);
  }

  // ---- schedules

  /** A schedule as the API shows it, with its next five fire times (and its latest fires, when asked for one). */
  record ScheduleView(String id, String name, String cron, String timeZone, String suite, Map<String, String> options,
      Schedule.Target target, boolean paused, Instant nextFireAt, List<Instant> nextFires, Instant createdAt,
      Instant updatedAt, List<Schedule.Fire> fires) {

    static ScheduleView of(Schedule s, Instant now, List<Schedule.Fire> fires) {
      Cron cron = Cron.parse(s.cron(), s.timeZone());
      List<Instant> next = new java.util.ArrayList<>();
      if (!s.paused() && s.nextFireAt() != null) {
        next.add(s.nextFireAt());
        next.addAll(cron.next(s.nextFireAt(), 4));
      } else if (!s.paused()) {
        next.addAll(cron.next(now, 5));
      }
      return new ScheduleView(s.id(), s.name(), s.cron(), s.timeZone(), s.suite(), s.options(), s.target(), s.paused(),
          s.paused() ? null : s.nextFireAt(), next, s.createdAt(), s.updatedAt(), fires);
    }
  }

  private static final int FIRES_SHOWN = 20;

  private void createSchedule(RoutingContext ctx) {
    byte[] body = bodyBytes(ctx);
    blocking(agents::devices).compose(devices -> {
      ScheduleRequest request = ScheduleRequest.parse(body, devices);
      Instant now = clock.instant();
      Schedule schedule = new Schedule(UUID.randomUUID().toString(), request.name(), request.cron().expression(),
          request.cron().zone().getId(), request.suite(), request.options(), request.target(), request.paused(),
          request.paused() ? null : request.cron().nextAfter(now).orElse(null), now, now);
      return blocking(() -> {
        schedules.insert(schedule);
        return schedule;
      });
    }).onSuccess(schedule -> {
      ctx.response().putHeader(HttpHeaders.LOCATION, "/api/schedules/" + schedule.id());
      json(ctx.response(), 201, ScheduleView.of(schedule, clock.instant(), List.of()));
    }).onFailure(ctx::fail);
  }

  private void listSchedules(RoutingContext ctx) {
    blocking(schedules::all).onSuccess(all -> json(ctx.response(), 200,
        all.stream().map(s -> ScheduleView.of(s, clock.instant(), null)).toList())).onFailure(ctx::fail);
  }

  private void getSchedule(RoutingContext ctx) {
    String id = pathId(ctx);
    blocking(() -> schedules.find(id).map(s -> ScheduleView.of(s, clock.instant(), schedules.fires(id, FIRES_SHOWN))))
        .onSuccess(found -> {
          if (found.isPresent()) {
            json(ctx.response(), 200, found.get());
          } else {
            unknownSchedule(ctx, id);
          }
        }).onFailure(ctx::fail);
  }

  private void updateSchedule(RoutingContext ctx) {
    String id = pathId(ctx);
    byte[] body = bodyBytes(ctx);
    blocking(() -> schedules.find(id)).compose(existing -> {
      if (existing.isEmpty()) {
        return Future.succeededFuture(Optional.<Schedule>empty());
      }
      return blocking(agents::devices).compose(devices -> {
        ScheduleRequest request = ScheduleRequest.parse(body, devices);
        Instant now = clock.instant();
        Schedule updated = new Schedule(id, request.name(), request.cron().expression(), request.cron().zone().getId(),
            request.suite(), request.options(), request.target(), request.paused(),
            request.paused() ? null : request.cron().nextAfter(now).orElse(null), existing.get().createdAt(), now);
        return blocking(() -> schedules.update(updated) ? Optional.of(updated) : Optional.<Schedule>empty());
      });
    }).onSuccess(updated -> {
      if (updated.isPresent()) {
        json(ctx.response(), 200, ScheduleView.of(updated.get(), clock.instant(), null));
      } else {
        unknownSchedule(ctx, id);
      }
    }).onFailure(ctx::fail);
  }

  /** Pausing clears the next fire time; resuming sets it after now, so a pause never produces a late fire. */
  private void setPaused(RoutingContext ctx, boolean paused) {
    String id = pathId(ctx);
    blocking(() -> schedules.find(id).map(s -> {
      Instant now = clock.instant();
      Schedule changed = new Schedule(s.id(), s.name(), s.cron(), s.timeZone(), s.suite(), s.options(), s.target(),
          paused, paused ? null : Cron.parse(s.cron(), s.timeZone()).nextAfter(now).orElse(null), s.createdAt(), now);
      schedules.update(changed);
      return changed;
    })).onSuccess(found -> {
      if (found.isPresent()) {
        json(ctx.response(), 200, ScheduleView.of(found.get(), clock.instant(), null));
      } else {
        unknownSchedule(ctx, id);
      }
    }).onFailure(ctx::fail);
  }

  private void deleteSchedule(RoutingContext ctx) {
    String id = pathId(ctx);
    blocking(() -> schedules.delete(id)).onSuccess(deleted -> {
      if (deleted) {
        ctx.response().setStatusCode(204).end();
      } else {
        unknownSchedule(ctx, id);
      }
    }).onFailure(ctx::fail);
  }

  private static void unknownSchedule(RoutingContext ctx, String id) {
    problem(ctx.response(), 404, "Not Found", "unknown schedule '" + id + "'", "id");
  }

  private static byte[] bodyBytes(RoutingContext ctx) {
    Buffer body = ctx.body().buffer();
    return body == null ? null : body.getBytes();
  }

  // ---- comparisons and regressions

  /** One model's row of a comparison: bandwidth and its fractions of the two ceilings (null when unknown). */
  record ComparisonView(String model, String deviceId, UUID resultId, String runId, Instant measuredAt, double bandwidth,
      Double memcpyBandwidth, Double fractionOfMemcpy, Double theoreticalPeak, Double fractionOfPeak,
      double relativeSpread) {

    static ComparisonView of(Analysis.ComparisonRow r) {
      Double memcpy = r.memcpyBandwidth();
      Double peak = r.theoreticalPeak() > 0 ? r.theoreticalPeak() : null;
      return new ComparisonView(r.model(), r.deviceId(), r.resultId(), r.runId(), r.measuredAt(), r.bandwidth(), memcpy,
          memcpy == null || memcpy <= 0 ? null : r.bandwidth() / memcpy, peak, peak == null ? null : r.bandwidth() / peak,
          r.relativeSpread());
    }
  }

  record Comparison(String kernel, String params, List<ComparisonView> models) {}

  private void comparison(RoutingContext ctx) {
    String kernel = param(ctx, "kernel");
    if (kernel == null) {
      throw new BadInput("kernel", "missing; name a kernel such as stride-copy-fp32");
    }
    String params = param(ctx, "params");
    if (params == null) {
      throw new BadInput("params", "missing; the kernel's parameters as results show them, such as elements=1024;stride=4");
    }
    blocking(() -> analysis.comparison(kernel, params)).onSuccess(rows -> json(ctx.response(), 200,
        new Comparison(kernel, params, rows.stream().map(ComparisonView::of).toList()))).onFailure(ctx::fail);
  }

  // ---- what the dashboard's views draw, bounded by the view rather than by the results stored (issue 5)

  private void latestResults(RoutingContext ctx) {
    String device = param(ctx, "device");
    String model = param(ctx, "model");
    if ((device == null) == (model == null)) {
      throw new BadInput(device == null ? "device" : "model", "give either device or model");
    }
    blocking(() -> views.latest(device, model)).onSuccess(rows -> ctx.response().setStatusCode(200)
        .putHeader(HttpHeaders.CONTENT_TYPE, JSON).end("[" + String.join(",", rows) + "]")).onFailure(ctx::fail);
  }

  private void history(RoutingContext ctx) {
    String kernel = param(ctx, "kernel");
    if (kernel == null) {
      throw new BadInput("kernel", "missing; name a kernel such as stride-copy-fp32");
    }
    String params = param(ctx, "params");
    if (params == null) {
      throw new BadInput("params", "missing; the kernel's parameters as results show them, such as elements=1024;stride=4");
    }
    int limit = intParam(ctx, "limit", MAX_HISTORY_POINTS, MAX_HISTORY_POINTS);
    blocking(() -> views.history(kernel, params, limit)).onSuccess(points -> json(ctx.response(), 200, points))
        .onFailure(ctx::fail);
  }

  private void regressions(RoutingContext ctx) {
    String kind = param(ctx, "kind");
    if (kind != null && !kind.equalsIgnoreCase("regression") && !kind.equalsIgnoreCase("improvement")) {
      throw new BadInput("kind", "unknown kind '" + kind + "'; known: regression, improvement");
    }
    String device = param(ctx, "device");
    String kernel = param(ctx, "kernel");
    int limit = intParam(ctx, "limit", DEFAULT_SWEEP_LIMIT, 10_000);
    blocking(() -> analysis.changes(device, kernel, kind == null ? null : kind.toUpperCase(Locale.ROOT), limit))
        .onSuccess(changes -> json(ctx.response(), 200, changes)).onFailure(ctx::fail);
  }

  private static Instant instantParam(RoutingContext ctx, String name) {
    String value = param(ctx, name);
    if (value == null) {
      return null;
    }
    try {
      Instant instant = Instant.parse(value);
      if (instant.isBefore(EARLIEST) || instant.isAfter(LATEST)) {
        // Outside what a PostgreSQL timestamp holds: refused here rather than failing the query with a 500.
        throw new BadInput(name, "must lie between " + EARLIEST + " and " + LATEST);
      }
      return instant;
    } catch (java.time.format.DateTimeParseException e) {
      throw new BadInput(name, "not an ISO-8601 instant such as 2026-11-01T00:00:00Z: '" + value + "'");
    }
  }

  /**
   * Streams one page, then the next once the client has taken it in; headers go out with the first page,
   * so a store failure before it still gets a proper problem response.
   */
  private void page(RoutingContext ctx, HttpServerResponse response, ResultQuery query, Format format,
      StoredResult after, int remaining, boolean first) {
    int size = Math.min(PAGE, remaining);
    Future<List<StoredResult>> next = size == 0 ? Future.succeededFuture(List.of())
        : blocking(() -> results.results(query, after, size));
    next.onComplete(read -> {
      if (response.closed()) {
        return;
      }
      if (read.failed()) {
        if (first) {
          ctx.fail(read.cause());
        } else {
          LOG.error("results stream broken off", read.cause());
          response.reset();
        }
        return;
      }
      List<StoredResult> rows = read.result();
      StringBuilder text = new StringBuilder();
      if (first) {
        response.setStatusCode(200).setChunked(true)
            .putHeader(HttpHeaders.CONTENT_TYPE, format == Format.CSV ? CSV : JSON);
        text.append(format == Format.CSV ? ResultsCsv.header() : "[");
      }
      for (int i = 0; i < rows.size(); i++) {
        if (format == Format.CSV) {
          text.append(ResultsCsv.row(
              JsonCodec.fromJson(rows.get(i).json().getBytes(StandardCharsets.UTF_8), KernelResult.class)));
        } else {
          if (!first || i > 0) {
            text.append(',');
          }
          text.append(rows.get(i).json());
        }
      }
      boolean last = rows.size() < size || size == 0 || remaining - rows.size() == 0;
      if (last) {
        if (format == Format.JSON) {
          text.append(']');
        }
        response.end(text.toString());
        return;
      }
      response.write(text.toString());
      StoredResult lastRow = rows.getLast();
      int left = remaining - rows.size();
      if (response.writeQueueFull()) {
        response.drainHandler(v -> page(ctx, response, query, format, lastRow, left, false));
      } else {
        page(ctx, response, query, format, lastRow, left, false);
      }
    });
  }

  /** {@code ?format=} wins over the Accept header, so a browser link can ask for CSV. */
  private static Format format(RoutingContext ctx) {
    String format = param(ctx, "format");
    if (format != null) {
      return switch (format.toLowerCase(Locale.ROOT)) {
        case "csv" -> Format.CSV;
        case "json" -> Format.JSON;
        default -> throw new BadInput("format", "unknown format '" + format + "'; known: json, csv");
      };
    }
    String accept = ctx.request().getHeader(HttpHeaders.ACCEPT);
    return accept != null && accept.toLowerCase(Locale.ROOT).contains("text/csv") ? Format.CSV : Format.JSON;
  }

  /** Longer than any id, device, kernel or params string the store holds (issue 6: bounded before the database). */
  static final int MAX_PARAM = 2000;
  static final Instant EARLIEST = Instant.parse("0001-01-01T00:00:00Z");
  static final Instant LATEST = Instant.parse("9999-12-31T23:59:59Z");

  private static String param(RoutingContext ctx, String name) {
    String value = ctx.request().getParam(name);
    if (value == null || value.isBlank()) {
      return null;
    }
    if (value.length() > MAX_PARAM) {
      throw new BadInput(name, "at most " + MAX_PARAM + " characters, got " + value.length());
    }
    if (value.indexOf('\u0000') >= 0) {
      // PostgreSQL refuses NUL in text: without this check the query failed with a 500.
      throw new BadInput(name, "must not contain NUL characters");
    }
    return value.trim();
  }

  /** The {@code :id} of a path, bounded and free of NUL before it reaches a query (a NUL made it a 500). */
  private static String pathId(RoutingContext ctx) {
    String id = ctx.pathParam("id");
    if (id == null || id.length() > 200) {
      throw new BadInput("id", "an id of at most 200 characters");
    }
    if (id.indexOf('\u0000') >= 0) {
      throw new BadInput("id", "must not contain NUL characters");
    }
    return id;
  }

  private static int intParam(RoutingContext ctx, String name, int fallback, int max) {
    String value = param(ctx, name);
    if (value == null) {
      return fallback;
    }
    try {
      int n = Integer.parseInt(value);
      if (n < 0 || n > max) {
        throw new BadInput(name, "must be between 0 and " + max + ", got " + n);
      }
      return n;
    } catch (NumberFormatException e) {
      throw new BadInput(name, "not a whole number: '" + value + "'");
    }
  }

  private void failure(RoutingContext ctx) {
    Throwable cause = ctx.failure();
    HttpServerResponse response = ctx.response();
    if (response.headWritten()) {
      response.reset();
      return;
    }
    if (cause instanceof BadInput bad) {
      problem(response, 400, "Bad Request", bad.getMessage(), bad.field());
    } else if (ctx.statusCode() == 413) {
      problem(response, 413, "Content Too Large", "the body is larger than " + BODY_LIMIT + " bytes", "body");
    } else if (cause == null && ctx.statusCode() >= 400 && ctx.statusCode() < 500) {
      problem(response, ctx.statusCode(), "Bad Request", "request refused (" + ctx.statusCode() + ")", null);
    } else {
      // Issue 6: no class name or message of ours in the answer (they describe internals); the log has both,
      // under a reference the client can quote.
      String reference = UUID.randomUUID().toString();
      LOG.error("{} {} failed (reference {})", ctx.request().method(), ctx.request().path(), reference, cause);
      problem(response, 500, "Internal Server Error", "the coordinator failed; reference " + reference
          + " in its log", null);
    }
  }

  private static void problem(HttpServerResponse response, int status, String title, String detail, String field) {
    response.setStatusCode(status)
        .putHeader(HttpHeaders.CONTENT_TYPE, Problem.CONTENT_TYPE)
        .end(Buffer.buffer(JsonCodec.toJson(Problem.of(status, title, detail, field))));
  }

  private static void json(HttpServerResponse response, int status, Object body) {
    response.setStatusCode(status)
        .putHeader(HttpHeaders.CONTENT_TYPE, JSON)
        .end(Buffer.buffer(JsonCodec.toJson(body)));
  }

  private <T> Future<T> blocking(Callable<T> work) {
    return vertx.executeBlocking(work, false);
  }
}
