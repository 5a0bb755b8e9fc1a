package io.busload.coordinator.api;

import static io.busload.coordinator.api.Replies.json;

import io.busload.coordinator.store.Database;
import io.busload.protocol.cluster.Cluster;
import io.vertx.core.Vertx;
import io.vertx.ext.web.RoutingContext;
import java.util.Map;

/**
 * {@code /health} and {@code /ready}, for an orchestrator's probes (deploy/kubernetes). Liveness asks only that the
 * event loop answers HTTP, so a restart is never ordered for a database outage it cannot cure. Readiness asks that
 * the store answers and that the event bus is up (Hazelcast running, this coordinator among its members; always up on
 * a local Vert.x), so traffic stops while either is missing. Reads need no token, like every read.
 */
public record HealthResource(Vertx vertx, Database database) implements ApiResource {
  /** Liveness: answers 200 while the REST server runs. */
  public static final String LIVENESS = "/health";
  /** Readiness: 200 when the store answers and the event bus is up, else 503 naming what is down. */
  public static final String READINESS = "/ready";
  /** How long readiness waits for the store: below a probe's usual timeout, so the answer arrives as a 503. */
  static final int DATABASE_TIMEOUT_SECONDS = 3;

  @Override
  public void mount(Mounts api) {
    api.at(LIVENESS).get("/").handler(ctx -> json(ctx.response(), 200, Map.of("status", "up")));
    api.at(READINESS).get("/").handler(this::ready);
  }

  private void ready(RoutingContext ctx) {
    boolean eventBus = Cluster.coordinatorPresent(vertx);
    vertx.executeBlocking(() -> database.answers(DATABASE_TIMEOUT_SECONDS), false)
        .otherwise(false)
        .onSuccess(store -> {
          boolean ready = store && eventBus;
          json(ctx.response(), ready ? 200 : 503, Map.of("status", ready ? "ready" : "not ready",
              "database", store ? "up" : "down", "eventBus", eventBus ? "up" : "down"));
        });
  }
}
