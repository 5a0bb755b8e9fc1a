package io.busload.coordinator.api;

import io.vertx.core.Handler;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * One resource of the REST API: its routes on routers of its own, each mounted under one path. {@link RestApi}
 * checks write tokens before any resource sees a request and answers every failure the same way. A resource is a
 * record of what it uses, so its constructor is the whole list of its dependencies.
 */
public interface ApiResource {
  /** Adds this resource's routes, on routers that {@code api} mounts under their paths. */
  void mount(Mounts api);

  /** Where a resource mounts its routers. */
  @FunctionalInterface
  interface Mounts {
    /** A new router serving {@code path} and what lies below it ({@code /api/sweeps}, {@code /api/sweeps/...}). */
    Router at(String path);

    /**
     * A collection at {@code path}: {@code POST /} makes one from a JSON body (read by {@link Requests#body()}, so
     * within its size limit), {@code GET /} lists them. Returns the router, for the routes of one member.
     */
    default Router collection(String path, Handler<RoutingContext> create, Handler<RoutingContext> list) {
      Router routes = at(path);
      routes.post("/").handler(Requests.body()).handler(create);
      routes.get("/").handler(list);
      return routes;
    }
  }
}
