package io.busload.coordinator.api;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;

/**
 * The REST API of docs/contract.md as one router: the token and scope check on every request first ({@link ApiAuth}), then each resource under
 * its own path, the OpenAPI document and the metrics, and one kind of answer for every error. Handlers run on the
 * coordinator's event loop; the stores on workers.
 */
public final class RestApi {
  /**
   * The REST API's version, on every answer as {@link #VERSION_HEADER} and in {@code GET /api/version}: a route or a
   * field added keeps it, one removed, renamed or given another meaning bumps it (docs/upgrading.md).
   */
  public static final int VERSION = 1;
  public static final String VERSION_HEADER = "Busload-Api-Version";

  private final Vertx vertx;
  private final ApiAuth auth;
  private final PrometheusMeterRegistry metrics;
  private final List<ApiResource> resources;

  public RestApi(Vertx vertx, ApiTokens tokens, PrometheusMeterRegistry metrics, List<ApiResource> resources) {
    this.vertx = vertx;
    this.auth = new ApiAuth(tokens, metrics);
    this.metrics = metrics;
    this.resources = List.copyOf(resources);
  }

  public Router router() {
    Router router = Router.router(vertx);
    // First of all, so that every answer under /api carries it: refusals and errors as well as data.
    router.route("/api/*").handler(ctx -> {
      ctx.response().putHeader(VERSION_HEADER, String.valueOf(VERSION));
      ctx.next();
    });
    // First, before any body is read: a refused request costs the coordinator no parsing and no store call. The
    // OpenAPI document is public, as a login page is.
    router.get("/api/openapi.yaml").handler(RestApi::openApi);
    router.route().handler(auth);
    ApiResource.Mounts mounts = path -> {
      Router routes = Router.router(vertx);
      router.route(path + "*").subRouter(routes);
      return routes;
    };
    resources.forEach(resource -> resource.mount(mounts));
    router.get("/metrics").handler(ctx -> ctx.response().putHeader(HttpHeaders.CONTENT_TYPE,
        "text/plain; version=0.0.4; charset=utf-8").end(metrics.scrape()));
    router.route("/api/*").failureHandler(Replies::failure);
    router.errorHandler(404, ctx -> Replies.problem(ctx.response(), 404, "Not Found",
        "no such resource: " + ctx.request().path(), null));
    router.errorHandler(405, ctx -> Replies.problem(ctx.response(), 405, "Method Not Allowed",
        ctx.request().method() + " is not allowed on " + ctx.request().path(), null));
    router.errorHandler(413, Replies::tooLarge);
    return router;
  }

  private static void openApi(RoutingContext ctx) {
    try (InputStream in = RestApi.class.getResourceAsStream("/openapi.yaml")) {
      if (in == null) {
        throw new IOException("not on the class path");
      }
      ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, "application/yaml; charset=utf-8")
          .end(Buffer.buffer(in.readAllBytes()));
    } catch (IOException e) {
      ctx.fail(new IllegalStateException("openapi.yaml missing from the coordinator jar", e));
    }
  }
}
