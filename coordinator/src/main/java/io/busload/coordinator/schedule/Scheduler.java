package io.busload.coordinator.schedule;

import io.busload.coordinator.store.RunTarget;
import io.busload.coordinator.store.Schedule;
import io.busload.coordinator.store.ScheduleStore;
import io.busload.coordinator.store.AgentStore;
import io.busload.coordinator.store.StoredDevice;
import io.busload.coordinator.store.Sweep;
import io.busload.kernels.Catalog;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fires due schedules. Called on every coordinator tick; only the leader looks (see {@link Leadership}), and
 * only one look runs at a time. A fire found more than {@link #LATE_AFTER} after its time (the coordinators
 * were down) still runs, once, marked late; the fires missed in between are not made up.
 */
public final class Scheduler {
  private static final Logger LOG = LoggerFactory.getLogger(Scheduler.class);
  /** Ticks come every second; a fire a minute late was missed, not merely delayed. */
  public static final Duration LATE_AFTER = Duration.ofSeconds(60);

  private final Vertx vertx;
  private final AgentStore agents;
  private final ScheduleStore schedules;
  private final Leadership leadership;
  private final Clock clock;
  private final Consumer<Sweep> onSweep;
  private boolean looking;

  public Scheduler(Vertx vertx, AgentStore agents, ScheduleStore schedules, Leadership leadership, Clock clock,
      Consumer<Sweep> onSweep) {
    this.vertx = vertx;
    this.agents = agents;
    this.schedules = schedules;
    this.leadership = leadership;
    this.clock = clock;
    this.onSweep = onSweep;
  }

  /** Looks for due schedules if this coordinator leads and no look is under way. */
  public void tick() {
    if (looking || !leadership.leads()) {
      return;
    }
    looking = true;
    Instant now = clock.instant();
    vertx.executeBlocking(() -> fireDue(now), false).onComplete(done -> {
      looking = false;
      if (done.failed()) {
        LOG.error("schedules: cannot fire", done.cause());
        return;
      }
      done.result().forEach(onSweep);
    });
  }

  private List<Sweep> fireDue(Instant now) {
    List<Sweep> sweeps = new ArrayList<>();
    for (Schedule due : schedules.due(now)) {
      Optional<ScheduleStore.Fired> fired = schedules.fire(due.id(), now, LATE_AFTER, plan());
      fired.ifPresent(f -> {
        LOG.info("schedule {} ('{}') fired for {}{}: {}", due.id(), due.name(), f.fire().fireTime(),
            f.fire().late() ? " (late)" : "", f.sweep() == null ? f.fire().message() : "sweep " + f.sweep().id());
        if (f.sweep() != null) {
          sweeps.add(f.sweep());
        }
      });
    }
    return sweeps;
  }

  /** Matching devices from the store (every coordinator shares it), and the cron's next time. */
  public ScheduleStore.FirePlan plan() {
    return new ScheduleStore.FirePlan() {
      @Override
      public List<RunTarget> targets(Schedule schedule) {
        int kernels = Catalog.cases(schedule.suite()).size();
        return matching(agents.devices(), schedule.target()).stream()
            .map(d -> new RunTarget(d.id(), d.agentId(), kernels))
            .toList();
      }

      @Override
      public Instant nextAfter(Schedule schedule, Instant now) {
        return Cron.parse(schedule.cron(), schedule.timeZone()).nextAfter(now).orElse(null);
      }
    };
  }

  public static List<StoredDevice> matching(List<StoredDevice> devices, Schedule.Target target) {
    return devices.stream().filter(target::matches).toList();
  }

}
