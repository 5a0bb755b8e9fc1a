package io.busload.coordinator.api;

import io.vertx.ext.web.Router;

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
  }
}
