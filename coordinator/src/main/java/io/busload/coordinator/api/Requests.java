package io.busload.coordinator.api;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.type.LogicalType;
import io.busload.protocol.JsonCodec;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * What every resource reads from a request, checked once: query parameters bounded and free of NUL before they reach
 * a query, path ids, numbers, instants and bodies. A bad value is a {@link BadInput} naming the parameter.
 */
final class Requests {
  /** A sweep request is a few hundred bytes; a megabyte leaves room for long device lists and no more. */
  static final long BODY_LIMIT = 1024 * 1024;
  /** Longer than any id, device, kernel or params string the store holds (bounded before the database). */
  static final int MAX_PARAM = 2000;
  static final Instant EARLIEST = Instant.parse("0001-01-01T00:00:00Z");
  static final Instant LATEST = Instant.parse("9999-12-31T23:59:59Z");
  /** How many rows a list answers unless {@code ?limit=} says otherwise, and the most it may ask for. */
  static final int DEFAULT_LIMIT = 100;
  static final int MAX_LIMIT = 10_000;
  static final String KERNEL_HINT = "missing; name a kernel such as stride-copy-fp32";
  static final String PARAMS_HINT =
      "missing; the kernel's parameters as results show them, such as elements=1024;stride=4";

  private Requests() {}

  /** Reads a write's body, up to {@link #BODY_LIMIT} (a larger one is a 413 naming the body). */
  static BodyHandler body() {
    return BodyHandler.create(false).setBodyLimit(BODY_LIMIT);
  }

  /** The body read by {@link #body()}, or null when there was none. */
  static byte[] bodyBytes(RoutingContext ctx) {
    Buffer body = ctx.body().buffer();
    return body == null ? null : body.getBytes();
  }

  /**
   * The project's JSON mapping, but a number, boolean, object or array where a body's string belongs is refused, not
   * turned into a string: {@code "device": 7} names no device.
   */
  private static final ObjectMapper BODIES = JsonCodec.MAPPER.copy();

  static {
    BODIES.coercionConfigFor(LogicalType.Textual).setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
        .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
        .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
  }

  /**
   * The body read by {@link #body()} bound to the record {@code type} (unknown fields ignored). A body that is not
   * JSON, or not the JSON object {@code shape} describes, is a {@link BadInput} naming {@code body}; a field of the
   * wrong type is one naming that field.
   */
  static <T> T bodyAs(RoutingContext ctx, Class<T> type, String shape) {
    byte[] bytes = bodyBytes(ctx);
    T value;
    try {
      value = bytes == null ? null : BODIES.readValue(bytes, type);
    } catch (JsonParseException e) {
      throw new BadInput("body", "not JSON: " + e.getMessage().lines().findFirst().orElse(""));
    } catch (MismatchedInputException e) {
      String field = e.getPath().isEmpty() ? null : e.getPath().getFirst().getFieldName();
      if (field == null) {
        throw new BadInput("body", shape);
      }
      throw new BadInput(field, e.getTargetType() == String.class ? "must be a string"
          : "of the wrong type: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new BadInput("body", "not JSON: " + e.getMessage().lines().findFirst().orElse(""));
    }
    if (value == null) {
      throw new BadInput("body", shape);
    }
    return value;
  }

  /** A query parameter, trimmed; null when absent or blank. */
  static String param(RoutingContext ctx, String name) {
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

  /** A query parameter that must be given; {@code missing} says what it should hold. */
  static String required(RoutingContext ctx, String name, String missing) {
    String value = param(ctx, name);
    if (value == null) {
      throw new BadInput(name, missing);
    }
    return value;
  }

  /** The {@code :id} of a path, bounded and free of NUL before it reaches a query (a NUL made it a 500). */
  static String pathId(RoutingContext ctx) {
    String id = ctx.pathParam("id");
    if (id == null || id.length() > 200) {
      throw new BadInput("id", "an id of at most 200 characters");
    }
    if (id.indexOf('\u0000') >= 0) {
      throw new BadInput("id", "must not contain NUL characters");
    }
    return id;
  }

  /** A whole number from 0 to {@code max}, or {@code fallback} when absent. */
  static int intParam(RoutingContext ctx, String name, int fallback, int max) {
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

  /** {@code ?limit=} of a list: {@link #DEFAULT_LIMIT} unless given, at most {@link #MAX_LIMIT}. */
  static int limit(RoutingContext ctx) {
    return intParam(ctx, "limit", DEFAULT_LIMIT, MAX_LIMIT);
  }

  /** An ISO-8601 instant within what a PostgreSQL timestamp holds, or null when absent. */
  static Instant instantParam(RoutingContext ctx, String name) {
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
    } catch (DateTimeParseException e) {
      throw new BadInput(name, "not an ISO-8601 instant such as 2026-11-01T00:00:00Z: '" + value + "'");
    }
  }
}
