package io.busload.coordinator.api;

import static io.busload.coordinator.api.Replies.json;
import static io.busload.coordinator.api.Requests.bodyBytes;
import static io.busload.coordinator.api.Requests.pathId;

import io.busload.coordinator.fleet.Fleet;
import io.busload.coordinator.fleet.RunQueues;
import io.busload.coordinator.fleet.Slurm;
import io.busload.coordinator.store.Run;
import io.busload.coordinator.store.SweepStore;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;
import java.time.Clock;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@code /api/sweeps}: ask for a suite on devices ({@code POST}), and see sweeps with their runs. */
public record SweepResource(Vertx vertx, SweepStore sweeps, Fleet fleet, RunQueues queues, Clock clock, Slurm slurm)
    implements ApiResource {
  private static final Logger LOG = LoggerFactory.getLogger(SweepResource.class);

  @Override
  public void mount(Mounts api) {
    api.collection("/api/sweeps", this::create, this::list).get("/:id").handler(this::one);
  }

  /** Without Slurm: a sweep that names a partition is refused. */
  public SweepResource(Vertx vertx, SweepStore sweeps, Fleet fleet, RunQueues queues, Clock clock) {
    this(vertx, sweeps, fleet, queues, clock, null);
  }

  private void create(RoutingContext ctx) {
    byte[] body = bodyBytes(ctx);
    Set<String> partitions = NewSweep.slurmPartitions(body);
    if (partitions.isEmpty() || slurm == null) {
      create(ctx, body, Map.of());
      return;
    }
    // sinfo is a process: asked on a worker, the nodes then used on the event loop with the fleet's state.
    blocking(() -> {
      Map<String, List<Slurm.Node>> nodes = new HashMap<>();
      for (String partition : partitions) {
        try {
          nodes.put(partition, slurm.nodes(partition));
        } catch (IllegalArgumentException | IllegalStateException e) {
          throw new BadInput("devices", "'" + NewSweep.SLURM + partition + "': " + e.getMessage());
        }
      }
      return nodes;
    }).onSuccess(nodes -> {
      try {
        create(ctx, body, nodes);
      } catch (RuntimeException e) {
        ctx.fail(e);
      }
    }).onFailure(ctx::fail);
  }

  private void create(RoutingContext ctx, byte[] body, Map<String, List<Slurm.Node>> slurmNodes) {
    NewSweep request = NewSweep.parse(body, new NewSweep.Devices() {
      @Override
      public List<Slurm.Node> slurmNodes(String partition) {
        List<Slurm.Node> nodes = slurmNodes.get(partition);
        return nodes != null ? nodes : NewSweep.Devices.super.slurmNodes(partition);
      }

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
