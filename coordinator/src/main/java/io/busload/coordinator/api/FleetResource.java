package io.busload.coordinator.api;

import static io.busload.coordinator.api.Replies.json;
import static io.busload.coordinator.api.Requests.param;

import io.busload.coordinator.fleet.Fleet;
import io.busload.coordinator.schedule.Scheduler;
import io.busload.coordinator.store.AgentStore;
import io.busload.coordinator.store.Schedule;
import io.busload.protocol.DeviceInfo;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.time.Clock;
import java.time.Instant;
import java.util.List;

/**
 * {@code GET /api/agents}: the agents as the fleet knows them now (online or not, what each device runs), and
 * {@code GET /api/devices}: every device the store remembers, with its host's labels.
 */
public record FleetResource(Vertx vertx, Fleet fleet, AgentStore agents, Clock clock) implements ApiResource {
  @Override
  public void mount(Mounts api) {
    api.at("/api/agents").get("/").handler(ctx -> json(ctx.response(), 200, fleet.view(clock.instant())));
    api.at("/api/devices").get("/").handler(this::devices);
  }

  /**
   * Every known device, or with {@code ?target=KIND&value=V} those a schedule with that target would run on (the
   * same matching, so a lab can preview a label before it schedules by it).
   */
  private void devices(RoutingContext ctx) {
    String kind = param(ctx, "target");
    Schedule.Target target = kind == null ? null
        : ScheduleRequest.target(kind, param(ctx, "value"), "target", "value");
    vertx.executeBlocking(agents::devices, false).onSuccess(devices -> json(ctx.response(), 200,
        (target == null ? devices : Scheduler.matching(devices, target)).stream()
            .map(d -> new DeviceRow(d.id(), d.agentId(), d.host(), d.labels(), d.model(), d.fingerprint(),
                fleet.online(d.agentId(), clock.instant()), d.lastSeen(), d.info()))
            .toList())).onFailure(ctx::fail);
  }

  record DeviceRow(String id, String agentId, String host, List<String> labels, String model, String fingerprint,
      boolean online, Instant lastSeen, DeviceInfo info) {}
}
