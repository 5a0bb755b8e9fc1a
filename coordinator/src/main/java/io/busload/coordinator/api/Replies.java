package io.busload.coordinator.api;

import io.busload.protocol.JsonCodec;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How every resource answers: JSON bodies, and RFC 9457 problems ({@link Problem}) for whatever went wrong, so that a
 * client sees one shape of error whichever resource it asked.
 */
final class Replies {
  private static final Logger LOG = LoggerFactory.getLogger(Replies.class);
  static final String JSON = "application/json";

  private Replies() {}

  static void json(HttpServerResponse response, int status, Object body) {
    response.setStatusCode(status)
        .putHeader(HttpHeaders.CONTENT_TYPE, JSON)
        .end(Buffer.buffer(JsonCodec.toJson(body)));
  }

  static void problem(HttpServerResponse response, int status, String title, String detail, String field) {
    response.setStatusCode(status)
        .putHeader(HttpHeaders.CONTENT_TYPE, Problem.CONTENT_TYPE)
        .end(Buffer.buffer(JsonCodec.toJson(Problem.of(status, title, detail, field))));
  }

  /** 200 with what was found, or a 404 problem naming the unknown {@code what} ("sweep") and its {@code id}. */
  static void found(RoutingContext ctx, Optional<?> found, String what, String id) {
    if (found.isPresent()) {
      json(ctx.response(), 200, found.get());
    } else {
      notFound(ctx, what, id);
    }
  }

  /** 204 when the {@code what} ("schedule") {@code id} was there to delete, else a 404 problem naming it. */
  static void deleted(RoutingContext ctx, boolean deleted, String what, String id) {
    if (deleted) {
      ctx.response().setStatusCode(204).end();
    } else {
      notFound(ctx, what, id);
    }
  }

  static void notFound(RoutingContext ctx, String what, String id) {
    problem(ctx.response(), 404, "Not Found", "unknown " + what + " '" + id + "'", "id");
  }

  /** The failure handler of every route: bad input is a 400 naming its field, anything else a 500 with a reference. */
  static void failure(RoutingContext ctx) {
    Throwable cause = ctx.failure();
    HttpServerResponse response = ctx.response();
    if (response.headWritten()) {
      response.reset();
      return;
    }
    if (cause instanceof BadInput bad) {
      problem(response, 400, "Bad Request", bad.getMessage(), bad.field());
    } else if (cause instanceof Busy busy) {
      busy(response, busy);
    } else if (ctx.statusCode() == 413) {
      tooLarge(ctx);
    } else if (cause == null && ctx.statusCode() >= 400 && ctx.statusCode() < 500) {
      problem(response, ctx.statusCode(), "Bad Request", "request refused (" + ctx.statusCode() + ")", null);
    } else {
      // No class name or message of ours in the answer (they describe internals); the log has both,
      // under a reference the client can quote.
      String reference = UUID.randomUUID().toString();
      LOG.error("{} {} failed (reference {})", ctx.request().method(), ctx.request().path(), reference, cause);
      problem(response, 500, "Internal Server Error", "the coordinator failed; reference " + reference
          + " in its log", null);
    }
  }

  /** 429 or 503 with {@code Retry-After}: a cap was reached, and the same request later may succeed. */
  static void busy(HttpServerResponse response, Busy busy) {
    response.putHeader(HttpHeaders.RETRY_AFTER, Long.toString(busy.retryAfterSeconds()));
    problem(response, busy.status(), busy.status() == 429 ? "Too Many Requests" : "Service Unavailable",
        busy.getMessage(), null);
  }

  static void tooLarge(RoutingContext ctx) {
    problem(ctx.response(), 413, "Content Too Large", "the body is larger than " + Requests.BODY_LIMIT + " bytes",
        "body");
  }
}
