package io.busload.coordinator.api;

import static io.busload.coordinator.api.Replies.json;
import static io.busload.coordinator.api.Requests.bodyBytes;
import static io.busload.coordinator.api.Requests.pathId;

import io.busload.coordinator.fleet.Fleet;
import io.busload.coordinator.fleet.RunQueues;
import io.busload.coordinator.store.Run;
import io.busload.coordinator.store.SweepStore;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.time.Clock;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@code /api/sweeps}: ask for a suite on devices ({@code POST}), and see sweeps with their runs. */
public record SweepResource(Vertx vertx, SweepStore sweeps, Fleet fleet, RunQueues queues, Clock clock)
    implements ApiResource {
  private static final Logger LOG = LoggerFactory.getLogger(SweepResource.class);

  @Override
  public void mount(Mounts api) {
    Router routes = api.at("/api/sweeps");
    routes.post("/").handler(Requests.body()).handler(this::create);
    routes.get("/").handler(this::list);
    routes.get("/:id").handler(this::one);
  }

  private void create(RoutingContext ctx) {
    NewSweep request = NewSweep.parse(bodyBytes(ctx), new NewSweep.Devices() {
      @Override
      public Optional<String> agentOf(String deviceId) {
        return fleet.agentOf(deviceId);
      }

      @Override
      public List<String> online() {
        return fleet.onlineDevices(clock.instant());
      }

      @Override
      public Collection<String> known() {
        return fleet.devices();
      }
    });
    blocking(() -> sweeps.createSweep(request.suite(), request.options(), request.targets(), clock.instant()))
        .onSuccess(sweep -> {
          List<String> devices = sweep.runs().stream().map(Run::deviceId).toList();
          LOG.info("sweep {}: suite {} on {}", sweep.id(), sweep.suite(), devices);
          ctx.response().putHeader(HttpHeaders.LOCATION, "/api/sweeps/" + sweep.id());
          json(ctx.response(), 201, SweepViews.Created.of(sweep));
          queues.wake(devices);
        })
        .onFailure(ctx::fail);
  }

  private void list(RoutingContext ctx) {
    int limit = Requests.limit(ctx);
    blocking(() -> sweeps.sweeps(limit))
        .onSuccess(list -> json(ctx.response(), 200, list.stream().map(SweepViews.SweepView::of).toList()))
        .onFailure(ctx::fail);
  }

  private void one(RoutingContext ctx) {
    String id = pathId(ctx);
    blocking(() -> sweeps.sweep(id).map(SweepViews.SweepView::of))
        .onSuccess(found -> Replies.found(ctx, found, "sweep", id)).onFailure(ctx::fail);
  }

  private <T> Future<T> blocking(Callable<T> work) {
    return vertx.executeBlocking(work, false);
  }
}
