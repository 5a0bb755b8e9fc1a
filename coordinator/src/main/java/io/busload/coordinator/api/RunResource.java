package io.busload.coordinator.api;

import static io.busload.coordinator.api.Replies.json;
import static io.busload.coordinator.api.Requests.param;
import static io.busload.coordinator.api.Requests.pathId;

import io.busload.coordinator.store.RunState;
import io.busload.coordinator.store.SweepStore;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/** {@code /api/runs}: runs newest first, of one device or in one state, and one run by id. */
public record RunResource(Vertx vertx, SweepStore sweeps) implements ApiResource {
  private static final Set<String> RUN_STATES = Arrays.stream(RunState.values())
      .map(Enum::name).collect(Collectors.toCollection(TreeSet::new));

  @Override
  public void mount(Mounts api) {
    Router routes = api.at("/api/runs");
    routes.get("/").handler(this::list);
    routes.get("/:id").handler(this::one);
  }

  private void list(RoutingContext ctx) {
    String state = param(ctx, "state");
    if (state != null && !RUN_STATES.contains(state.toUpperCase(Locale.ROOT))) {
      throw new BadInput("state", "unknown state '" + state + "'; known: " + String.join(", ", RUN_STATES));
    }
    String device = param(ctx, "device");
    int limit = Requests.limit(ctx);
    RunState wanted = state == null ? null : RunState.valueOf(state.toUpperCase(Locale.ROOT));
    vertx.executeBlocking(() -> sweeps.runs(device, wanted, limit), false)
        .onSuccess(runs -> json(ctx.response(), 200, runs))
        .onFailure(ctx::fail);
  }

  private void one(RoutingContext ctx) {
    String id = pathId(ctx);
    vertx.executeBlocking(() -> sweeps.run(id), false)
        .onSuccess(found -> Replies.found(ctx, found, "run", id)).onFailure(ctx::fail);
  }
}
