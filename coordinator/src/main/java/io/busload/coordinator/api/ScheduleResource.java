package io.busload.coordinator.api;

import static io.busload.coordinator.api.Replies.json;
import static io.busload.coordinator.api.Requests.bodyBytes;
import static io.busload.coordinator.api.Requests.pathId;

import io.busload.coordinator.schedule.Cron;
import io.busload.coordinator.store.AgentStore;
import io.busload.coordinator.store.Schedule;
import io.busload.coordinator.store.ScheduleStore;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;

/**
 * {@code /api/schedules}: cron timetables that turn into sweeps, created, listed, changed, paused, resumed and
 * deleted. A schedule's targets are checked against the devices the store knows when it is written.
 */
public record ScheduleResource(Vertx vertx, ScheduleStore schedules, AgentStore agents, Clock clock)
    implements ApiResource {
  private static final int FIRES_SHOWN = 20;

  @Override
  public void mount(Mounts api) {
    Router routes = api.collection("/api/schedules", this::create, this::list);
    routes.get("/:id").handler(this::one);
    routes.put("/:id").handler(Requests.body()).handler(this::update);
    routes.post("/:id/pause").handler(ctx -> setPaused(ctx, true));
    routes.post("/:id/resume").handler(ctx -> setPaused(ctx, false));
    routes.delete("/:id").handler(this::delete);
  }

  private void create(RoutingContext ctx) {
    byte[] body = bodyBytes(ctx);
    blocking(agents::devices).compose(devices -> {
      ScheduleRequest request = ScheduleRequest.parse(body, devices);
      Instant now = clock.instant();
      Schedule schedule = new Schedule(UUID.randomUUID().toString(), request.name(), request.cron().expression(),
          request.cron().zone().getId(), request.suite(), request.options(), request.target(), request.paused(),
          request.paused() ? null : request.cron().nextAfter(now).orElse(null), now, now, request.allowOverlap());
      return blocking(() -> {
        schedules.insert(schedule);
        return schedule;
      });
    }).onSuccess(schedule -> {
      ctx.response().putHeader(HttpHeaders.LOCATION, "/api/schedules/" + schedule.id());
      json(ctx.response(), 201, ScheduleView.of(schedule, clock.instant(), List.of()));
    }).onFailure(ctx::fail);
  }

  private void list(RoutingContext ctx) {
    blocking(schedules::all).onSuccess(all -> json(ctx.response(), 200,
        all.stream().map(s -> ScheduleView.of(s, clock.instant(), null)).toList())).onFailure(ctx::fail);
  }

  private void one(RoutingContext ctx) {
    String id = pathId(ctx);
    blocking(() -> schedules.find(id).map(s -> ScheduleView.of(s, clock.instant(), schedules.fires(id, FIRES_SHOWN))))
        .onSuccess(found -> Replies.found(ctx, found, "schedule", id)).onFailure(ctx::fail);
  }

  private void update(RoutingContext ctx) {
    String id = pathId(ctx);
    byte[] body = bodyBytes(ctx);
    blocking(() -> schedules.find(id)).compose(existing -> {
      if (existing.isEmpty()) {
        return Future.succeededFuture(Optional.<Schedule>empty());
      }
      return blocking(agents::devices).compose(devices -> {
        ScheduleRequest request = ScheduleRequest.parse(body, devices);
        Instant now = clock.instant();
        Schedule updated = new Schedule(id, request.name(), request.cron().expression(), request.cron().zone().getId(),
            request.suite(), request.options(), request.target(), request.paused(),
            request.paused() ? null : request.cron().nextAfter(now).orElse(null), existing.get().createdAt(), now,
            request.allowOverlap());
        return blocking(() -> schedules.update(updated) ? Optional.of(updated) : Optional.<Schedule>empty());
      });
    }).onSuccess(updated -> Replies.found(ctx, updated.map(s -> ScheduleView.of(s, clock.instant(), null)),
        "schedule", id)).onFailure(ctx::fail);
  }

  /** Pausing clears the next fire time; resuming sets it after now, so a pause never produces a late fire. */
  private void setPaused(RoutingContext ctx, boolean paused) {
    String id = pathId(ctx);
    blocking(() -> schedules.find(id).map(s -> {
      Instant now = clock.instant();
      Schedule changed = new Schedule(s.id(), s.name(), s.cron(), s.timeZone(), s.suite(), s.options(), s.target(),
          paused, paused ? null : Cron.parse(s.cron(), s.timeZone()).nextAfter(now).orElse(null), s.createdAt(), now,
          s.allowOverlap());
      schedules.update(changed);
      return changed;
    })).onSuccess(found -> Replies.found(ctx, found.map(s -> ScheduleView.of(s, clock.instant(), null)),
        "schedule", id)).onFailure(ctx::fail);
  }

  private void delete(RoutingContext ctx) {
    String id = pathId(ctx);
    blocking(() -> schedules.delete(id)).onSuccess(deleted -> Replies.deleted(ctx, deleted, "schedule", id)).onFailure(ctx::fail);
  }

  private <T> Future<T> blocking(Callable<T> work) {
    return vertx.executeBlocking(work, false);
  }
}
