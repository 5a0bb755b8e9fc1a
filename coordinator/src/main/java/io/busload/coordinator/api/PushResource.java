package io.busload.coordinator.api;

import static io.busload.coordinator.api.Replies.json;
import static io.busload.coordinator.api.Requests.instantParam;
import static io.busload.coordinator.api.Requests.intParam;
import static io.busload.coordinator.api.Requests.param;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.busload.coordinator.push.PushRefused;
import io.busload.coordinator.push.Pushing;
import io.busload.coordinator.store.PushStore;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.Origin;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;

/**
 * {@code /api/pushes} (docs/contract.md): results pushed from hosts that cannot join the cluster. {@code
 * POST} takes one file as {@code ./busload run} writes it (JSON or CSV) and stores all of it or none; the GETs list
 * pushes and the devices known only through them. Mounted by {@link RestApi}, whose token check
 * ({@link ApiAuth}) runs first and leaves the caller for the push to record. Which token pushed and from which
 * address are shown to admin tokens only: to anyone else they map the lab's hosts and name its CI's tokens.
 */
public record PushResource(Vertx vertx, Pushing pushing, PushStore pushes, Gate gate) implements ApiResource {
  /** A pushed file is stored in one transaction; a suite's results with every sample are a few megabytes at most. */
  static final long BODY_LIMIT = 64L * 1024 * 1024;
  static final int DEFAULT_LIMIT = 100;
  static final int MAX_HOST = 255;
  static final int MAX_FILE = 1000;
  static final int MAX_TOOL_VERSION = 100;

  /**
   * At most {@code concurrentPushes} pushes are read and stored at once (each body up to {@link #BODY_LIMIT} held in
   * memory); the next is answered 429 with {@code Retry-After} before its body is read.
   */
  public PushResource(Vertx vertx, Pushing pushing, PushStore pushes, int concurrentPushes, java.time.Duration retryAfter) {
    this(vertx, pushing, pushes, new Gate("pushes", concurrentPushes, 429, retryAfter));
  }

  @Override
  public void mount(Mounts api) {
    Router routes = api.at("/api/pushes");
    // A platform handler: Vert.x Web runs these before the body handler, so a refused push has nothing of it read.
    routes.post("/").handler((io.vertx.ext.web.handler.PlatformHandler) this::admit)
        .handler(BodyHandler.create(false).setBodyLimit(BODY_LIMIT))
        .handler(this::push);
    routes.get("/").handler(this::list);
    routes.get("/devices").handler(this::devices);
    routes.get("/:id").handler(this::find);
    routes.route().failureHandler(this::failure);
  }

  /**
   * A refused push as an RFC 9457 problem: {@code field} as elsewhere, plus the {@code line} of the file and the
   * {@code resultId} the refusal is about, where known.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Refusal(String type, String title, int status, String detail, String field, Integer line, UUID resultId,
      String file) {}

  /** Takes a place among the pushes in progress for as long as this one lasts, or refuses it (nothing read yet). */
  private void admit(RoutingContext ctx) {
    gate.enter();
    ctx.addEndHandler(ended -> gate.leave());
    ctx.next();
  }

  private void push(RoutingContext ctx) {
    String host = source(ctx, "host", MAX_HOST);
    String file = source(ctx, "file", MAX_FILE);
    String toolVersion = source(ctx, "toolVersion", MAX_TOOL_VERSION);
    Instant measuredAt = instantParam(ctx, "measuredAt");
    Buffer body = ctx.body().buffer();
    String token = ctx.<ApiTokens.Caller>get(ApiAuth.CALLER).name();
    var remote = ctx.request().remoteAddress();
    Pushing.Source source = new Pushing.Source(token, host, file, remote == null ? null : remote.hostAddress(),
        measuredAt, toolVersion);
    pushing.push(source, body == null ? new byte[0] : body.getBytes()).onSuccess(outcome -> {
      ctx.response().putHeader(HttpHeaders.LOCATION, "/api/pushes/" + outcome.pushId());
      json(ctx.response(), outcome.stored() > 0 ? 201 : 200, outcome);
    }).onFailure(ctx::fail);
  }

  /** The source's name as the client gives it: optional, bounded, free of NUL (bounded before the store). */
  private static String source(RoutingContext ctx, String name, int max) {
    String value = param(ctx, name);
    if (value != null && value.length() > max) {
      throw new BadInput(name, "at most " + max + " characters, got " + value.length());
    }
    return value;
  }

  private void list(RoutingContext ctx) {
    int limit = intParam(ctx, "limit", DEFAULT_LIMIT, 10_000);
    boolean admin = admin(ctx);
    blocking(() -> pushes.list(limit)).onSuccess(list -> json(ctx.response(), 200, admin ? list
        : list.stream().map(PushSeen::of).toList())).onFailure(ctx::fail);
  }

  private static boolean admin(RoutingContext ctx) {
    ApiTokens.Caller caller = ctx.get(ApiAuth.CALLER);
    return caller != null && caller.may(Scope.ADMIN);
  }

  /** A push as a caller without the admin scope sees it: no token name, no network address. */
  record PushSeen(UUID id, String host, String file, String format, int results, int stored, Instant pushedAt) {
    static PushSeen of(PushStore.Push push) {
      return new PushSeen(push.id(), push.host(), push.file(), push.format(), push.results(), push.stored(),
          push.pushedAt());
    }
  }

  record PushSeenView(PushSeen push, List<UUID> storedResults) {}

  /** One push and the ids of the results it stored first (a result already present keeps its earlier origin). */
  record PushView(PushStore.Push push, List<UUID> storedResults) {}

  private void find(RoutingContext ctx) {
    String raw = ctx.pathParam("id");
    UUID id;
    try {
      id = UUID.fromString(raw);
    } catch (IllegalArgumentException e) {
      throw new BadInput("id", "not a push id (UUID)");
    }
    boolean admin = admin(ctx);
    blocking(() -> pushes.find(id).map(push -> new PushView(push, pushes.resultsOf(id)))).onSuccess(found -> {
      if (found.isPresent()) {
        PushView view = found.get();
        json(ctx.response(), 200, admin ? view : new PushSeenView(PushSeen.of(view.push()), view.storedResults()));
      } else {
        Replies.problem(ctx.response(), 404, "Not Found", "unknown push '" + id + "'", "id");
      }
    }).onFailure(ctx::fail);
  }

  /**
   * A device known only through pushed results, in the shape of {@code GET /api/devices} (never online: no agent
   * serves it), with {@code origin} {@link Origin#PUSHED}.
   */
  record DeviceView(String id, String agentId, String host, List<String> labels, String model, String fingerprint,
      boolean online, Instant lastSeen, DeviceInfo info, String origin) {}

  private void devices(RoutingContext ctx) {
    blocking(pushes::devices).onSuccess(devices -> json(ctx.response(), 200, devices.stream()
        .map(d -> new DeviceView(d.id(), d.agentId(), d.host(), List.of(), d.model(), d.fingerprint(), false,
            d.lastPushed(), d.info(), Origin.PUSHED))
        .toList())).onFailure(ctx::fail);
  }

  private void failure(RoutingContext ctx) {
    HttpServerResponse response = ctx.response();
    Throwable cause = ctx.failure();
    if (response.headWritten()) {
      response.reset();
    } else if (cause instanceof PushRefused refused) {
      refuse(response, refused.status(), refused.status() == 409 ? "Conflict" : "Bad Request", refused.getMessage(),
          refused.field(), refused.line(), refused.resultId(), param(ctx, "file"));
    } else if (cause instanceof Busy busy) {
      Replies.busy(response, busy);
    } else if (ctx.statusCode() == 413) {
      refuse(response, 413, "Content Too Large", "the file is larger than " + BODY_LIMIT / (1024 * 1024)
          + " MiB; push it in parts", "body", null, null, param(ctx, "file"));
    } else {
      ctx.next(); // RestApi's: bad parameters, and failures that are the coordinator's
    }
  }

  private static void refuse(HttpServerResponse response, int status, String title, String detail, String field,
      Integer line, UUID resultId, String file) {
    response.setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, Problem.CONTENT_TYPE)
        .end(Buffer.buffer(JsonCodec.toJson(new Refusal("about:blank", title, status, detail, field, line, resultId,
            file))));
  }

  private <T> Future<T> blocking(Callable<T> work) {
    return vertx.executeBlocking(work, false);
  }
}
