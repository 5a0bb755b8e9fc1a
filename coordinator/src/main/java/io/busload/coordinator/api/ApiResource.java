package io.busload.coordinator.api;

import io.vertx.ext.web.Router;

/**
 * One resource of the REST API: its routes on routers of its own, each mounted under one path of the API's router.
 * {@link RestApi} checks write tokens before any resource sees a request and answers every failure the same way.
 */
public interface ApiResource {
  /** Mounts this resource's routers on {@code api}, typically with {@link #mount(Router, String, Router)}. */
  void mount(Router api);

  /** Mounts {@code routes} under {@code path}: {@code /api/sweeps} serves {@code /api/sweeps} and {@code /api/sweeps/...}. */
  static void mount(Router api, String path, Router routes) {
    api.route(path + "*").subRouter(routes);
  }
}
