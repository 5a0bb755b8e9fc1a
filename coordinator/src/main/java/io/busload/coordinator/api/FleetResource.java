package io.busload.coordinator.api;

import static io.busload.coordinator.api.Replies.json;
import static io.busload.coordinator.api.Requests.param;

import io.busload.coordinator.fleet.Fleet;
import io.busload.coordinator.schedule.Scheduler;
import io.busload.coordinator.store.AgentStore;
import io.busload.coordinator.store.HealthStore;
import io.busload.coordinator.store.Schedule;
import io.busload.protocol.DeviceInfo;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * {@code GET /api/agents}: the agents as the fleet knows them now (online or not, what each device runs),
 * {@code GET /api/devices}: every device the store remembers, with its host's labels and its health verdict, and
 * {@code GET /api/devices/health}: every judged device's health verdict with its reasons, or with
 * {@code ?device=ID} one device's (404 until it is judged; device ids hold a slash, so they go in the query).
 */
public record FleetResource(Vertx vertx, Fleet fleet, AgentStore agents, HealthStore health, Clock clock)
    implements ApiResource {
  @Override
  public void mount(Mounts api) {
    api.at("/api/agents").get("/").handler(ctx -> json(ctx.response(), 200, fleet.view(clock.instant())));
    Router devices = api.at("/api/devices");
    devices.get("/").handler(this::devices);
    devices.get("/health").handler(this::health);
  }

  private void health(RoutingContext ctx) {
    String id = param(ctx, "device");
    if (id == null) {
      vertx.executeBlocking(health::devices, false).onSuccess(all -> json(ctx.response(), 200, all))
          .onFailure(ctx::fail);
      return;
    }
    vertx.executeBlocking(() -> health.device(id), false).onSuccess(found -> found.ifPresentOrElse(
        h -> json(ctx.response(), 200, h), () -> Replies.notFound(ctx, "judged device", id))).onFailure(ctx::fail);
  }

  /**
   * Every known device, or with {@code ?target=KIND&value=V} those a schedule with that target would run on (the
   * same matching, so a lab can preview a label before it schedules by it).
   */
  private void devices(RoutingContext ctx) {
    String kind = param(ctx, "target");
    Schedule.Target target = kind == null ? null
        : ScheduleRequest.target(kind, param(ctx, "value"), "target", "value");
    vertx.executeBlocking(() -> Map.entry(agents.devices(), health.devices().stream()
        .collect(Collectors.toMap(HealthStore.DeviceHealth::deviceId, h -> h))), false).onSuccess(found -> json(
        ctx.response(), 200, (target == null ? found.getKey() : Scheduler.matching(found.getKey(), target)).stream()
            .map(d -> new DeviceRow(d.id(), d.agentId(), d.host(), d.labels(), d.model(), d.fingerprint(),
                fleet.online(d.agentId(), clock.instant()), d.lastSeen(), d.info(), found.getValue().get(d.id())))
            .toList())).onFailure(ctx::fail);
  }

  /** One device; {@code health} is null until a run with NVML health read has been judged. */
  record DeviceRow(String id, String agentId, String host, List<String> labels, String model, String fingerprint,
      boolean online, Instant lastSeen, DeviceInfo info, HealthStore.DeviceHealth health) {}
}
