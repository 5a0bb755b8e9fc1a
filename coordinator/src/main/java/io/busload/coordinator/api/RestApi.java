package io.busload.coordinator.api;

import io.busload.coordinator.fleet.Fleet;
import io.busload.coordinator.fleet.RunQueues;
import io.busload.coordinator.store.ResultQuery;
import io.busload.coordinator.store.StoredResult;
import io.busload.coordinator.store.Store;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
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
  /** Rows read per store call while streaming results. */
  static final int PAGE = 500;
  private static final String JSON = "application/json";
  private static final String CSV = "text/csv; charset=utf-8";

  private final Vertx vertx;
  private final Store store;
  private final Fleet fleet;
  private final RunQueues queues;
  private final Clock clock;

  public RestApi(Vertx vertx, Store store, Fleet fleet, RunQueues queues, Clock clock) {
    this.vertx = vertx;
    this.store = store;
    this.fleet = fleet;
    this.queues = queues;
    this.clock = clock;
  }

  public Router router() {
    Router router = Router.router(vertx);
    router.get("/api/agents").handler(this::agents);
    router.post("/api/sweeps")
        .handler(BodyHandler.create(false).setBodyLimit(BODY_LIMIT))
        .handler(this::createSweep);
    router.get("/api/sweeps").handler(this::sweeps);
    router.get("/api/sweeps/:id").handler(this::sweep);
    router.get("/api/results").handler(this::results);
    router.route("/api/*").failureHandler(this::failure);
    router.errorHandler(404, ctx -> problem(ctx.response(), 404, "Not Found", "no such resource: " + ctx.request().path(), null));
    router.errorHandler(405, ctx -> problem(ctx.response(), 405, "Method Not Allowed",
        ctx.request().method() + " is not allowed on " + ctx.request().path(), null));
    router.errorHandler(413, ctx -> problem(ctx.response(), 413, "Content Too Large",
        "the body is larger than " + BODY_LIMIT + " bytes", "body"));
    return router;
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
    blocking(() -> store.createSweep(request.suite(), request.options(), request.targets(), clock.instant()))
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
    blocking(() -> store.sweeps(limit))
        .onSuccess(list -> json(ctx.response(), 200, list.stream().map(SweepViews.SweepView::of).toList()))
        .onFailure(ctx::fail);
  }

  private void sweep(RoutingContext ctx) {
    String id = ctx.pathParam("id");
    blocking(() -> store.sweep(id)).onSuccess(found -> {
      if (found.isPresent()) {
        json(ctx.response(), 200, SweepViews.SweepView.of(found.get()));
      } else {
        problem(ctx.response(), 404, "Not Found", "unknown sweep '" + id + "'", "id");
      }
    }).onFailure(ctx::fail);
  }

  private enum Format { JSON, CSV }

  private void results(RoutingContext ctx) {
    ResultQuery query = new ResultQuery(param(ctx, "sweepId"), param(ctx, "device"), param(ctx, "kernel"),
        intParam(ctx, "limit", DEFAULT_RESULT_LIMIT, MAX_RESULT_LIMIT));
    Format format = format(ctx);
    HttpServerResponse response = ctx.response();
    page(ctx, response, query, format, null, query.limit(), true);
  }

  /**
   * Streams one page, then the next once the client has taken it in; headers go out with the first page,
   * so a store failure before it still gets a proper problem response.
   */
  private void page(RoutingContext ctx, HttpServerResponse response, ResultQuery query, Format format,
      StoredResult after, int remaining, boolean first) {
    int size = Math.min(PAGE, remaining);
    Future<List<StoredResult>> next = size == 0 ? Future.succeededFuture(List.of())
        : blocking(() -> store.results(query, after, size));
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

  private static String param(RoutingContext ctx, String name) {
    String value = ctx.request().getParam(name);
    return value == null || value.isBlank() ? null : value.trim();
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
      LOG.error("{} {} failed", ctx.request().method(), ctx.request().path(), cause);
      problem(response, 500, "Internal Server Error",
          cause == null ? "failed" : cause.getClass().getSimpleName() + ": " + cause.getMessage(), null);
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
