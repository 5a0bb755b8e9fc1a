package io.busload.coordinator.api;

import static io.busload.coordinator.api.Replies.json;
import static io.busload.coordinator.api.Requests.instantParam;
import static io.busload.coordinator.api.Requests.intParam;
import static io.busload.coordinator.api.Requests.param;
import static io.busload.coordinator.api.Requests.required;

import io.busload.coordinator.store.ResultQuery;
import io.busload.coordinator.store.ResultStore;
import io.busload.coordinator.store.StoredResult;
import io.busload.coordinator.store.ViewStore;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Results as measured: {@code GET /api/results} streams them (JSON or CSV) page by page, so a large export does not
 * sit whole in memory; {@code /api/results/latest}, {@code /api/kernels} and {@code /api/history} are what the
 * dashboard's views draw, each bounded by the view rather than by the results stored.
 */
public record ResultResource(Vertx vertx, ResultStore results, ViewStore views) implements ApiResource {
  private static final Logger LOG = LoggerFactory.getLogger(ResultResource.class);
  static final int DEFAULT_RESULT_LIMIT = 1000;
  static final int MAX_RESULT_LIMIT = 1_000_000;
  /** A history chart's points: years of nightly runs of dozens of devices, still a chart a browser draws at once. */
  static final int MAX_HISTORY_POINTS = 20_000;
  /** Rows read per store call while streaming results. */
  static final int PAGE = 2000;
  private static final String CSV = "text/csv; charset=utf-8";

  @Override
  public void mount(Mounts api) {
    Router results = api.at("/api/results");
    results.get("/").handler(this::results);
    results.get("/latest").handler(this::latest);
    api.at("/api/kernels").get("/").handler(ctx -> blocking(views::kernels)
        .onSuccess(pairs -> json(ctx.response(), 200, pairs)).onFailure(ctx::fail));
    api.at("/api/history").get("/").handler(this::history);
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
        Replies.problem(response, 400, "Bad Request", "unknown result id '" + key + "'", "after");
        return;
      }
      page(ctx, response, query, format, found.orElse(null), query.limit(), true);
    }).onFailure(ctx::fail);
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
            .putHeader(HttpHeaders.CONTENT_TYPE, format == Format.CSV ? CSV : Replies.JSON);
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

  /** The newest valid result of each kernel and params of one device or one model, as the agent sent it. */
  private void latest(RoutingContext ctx) {
    String device = param(ctx, "device");
    String model = param(ctx, "model");
    if ((device == null) == (model == null)) {
      throw new BadInput(device == null ? "device" : "model", "give either device or model");
    }
    blocking(() -> views.latest(device, model)).onSuccess(rows -> ctx.response().setStatusCode(200)
        .putHeader(HttpHeaders.CONTENT_TYPE, Replies.JSON).end("[" + String.join(",", rows) + "]"))
        .onFailure(ctx::fail);
  }

  private void history(RoutingContext ctx) {
    String kernel = required(ctx, "kernel", Requests.KERNEL_HINT);
    String params = required(ctx, "params", Requests.PARAMS_HINT);
    int limit = intParam(ctx, "limit", MAX_HISTORY_POINTS, MAX_HISTORY_POINTS);
    blocking(() -> views.history(kernel, params, limit)).onSuccess(points -> json(ctx.response(), 200, points))
        .onFailure(ctx::fail);
  }

  private <T> Future<T> blocking(Callable<T> work) {
    return vertx.executeBlocking(work, false);
  }
}
