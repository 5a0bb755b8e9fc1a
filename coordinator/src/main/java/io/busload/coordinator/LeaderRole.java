package io.busload.coordinator;

import io.busload.coordinator.fleet.Fleet;
import io.busload.coordinator.fleet.Intake;
import io.busload.coordinator.fleet.RunQueues;
import io.busload.coordinator.schedule.Leadership;
import io.busload.coordinator.store.AgentStore;
import io.busload.coordinator.store.KnownAgent;
import io.busload.coordinator.store.LeaderLease;
import io.busload.coordinator.store.Run;
import io.busload.coordinator.store.SweepStore;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This coordinator's part as leader or hot standby, acted on. Two coordinators on one store: only the leader (the
 * holder of the {@link LeaderLease}) takes results, statuses, hellos and heartbeats, dispatches runs and fires
 * schedules; the other is a hot standby whose REST API reads the shared store. When the leader dies, the standby reads
 * what it left in the store (the agents and the runs in progress) and takes over; every agent retries what it had not
 * seen acked, so nothing sent to the dead leader is lost, and the result id makes a resend harmless.
 *
 * <p>{@link Leadership} says what the lease says; this class turns a change of it into a takeover or a hand-back, once
 * each, and holds {@link #leading()}: leading as acted on, which the run queues, sample aging, Slurm jobs and the
 * notifier read. It sits beside the verticle rather than in {@code schedule} because taking over registers the
 * intake and restores the fleet and the run queues, which the schedule layer may not reach. All of it runs on the
 * verticle's event loop; the lease and the store are read on workers.
 */
final class LeaderRole {
  /**
   * The verticle's logger: who leads is read from these lines (by operators and the deploy tests), next to the rest
   * of the coordinator's start and stop.
   */
  private static final Logger LOG = LoggerFactory.getLogger(CoordinatorVerticle.class);

  private final Vertx vertx;
  private final LeaderLease lease;
  private final Leadership leadership;
  private final AgentStore agents;
  private final SweepStore sweeps;
  private final Fleet fleet;
  private boolean renewing;
  /** Leading now, as last seen by {@link #act}; a change of leader is acted on once. */
  private boolean leading;
  private boolean changingHands;
  private RunQueues queues;
  private Intake intake;
  /** The intake's consumers while this coordinator leads; null while it follows. */
  private List<MessageConsumer<?>> consumers;

  LeaderRole(Vertx vertx, LeaderLease lease, Leadership leadership, AgentStore agents, SweepStore sweeps,
      Fleet fleet) {
    this.vertx = vertx;
    this.lease = lease;
    this.leadership = leadership;
    this.agents = agents;
    this.sweeps = sweeps;
    this.fleet = fleet;
  }

  /** Leading as acted on: false from a lost lease until the hand-back began, and until a takeover has the store. */
  boolean leading() {
    return leading;
  }

  /** A takeover or hand-back is under way; what a standby reads of the store meanwhile may be stale. */
  boolean changingHands() {
    return changingHands;
  }

  /**
   * Takes the part the lease gives at start: the leader registers the intake (completing once it is registered), a
   * standby says so and registers nothing. The queues and the intake are built after this role, since they read
   * {@link #leading()}.
   */
  Future<?> start(RunQueues queues, Intake intake) {
    this.queues = queues;
    this.intake = intake;
    leading = leadership.leads();
    if (!leading) {
      LOG.info("another coordinator leads: this one serves the REST API and takes over intake, dispatch and"
          + " schedules when the leader leaves");
    }
    return leading ? intake.register().onSuccess(registered -> consumers = registered)
        : Future.succeededFuture();
  }

  /** Checks or takes the leader lease off the event loop; {@link #act} acts on what the last renewal found. */
  void renew() {
    if (renewing) {
      return;
    }
    renewing = true;
    vertx.executeBlocking(lease::renew, false).onComplete(done -> renewing = false);
  }

  /** Takes over or hands back when the lease's last renewal disagrees with {@link #leading()}. */
  void act() {
    boolean leads = leadership.leads();
    if (leads == leading || changingHands) {
      return;
    }
    changingHands = true;
    if (!leads) {
      LOG.warn("{}: this coordinator no longer leads; intake, dispatch and schedules stop here until it holds the"
          + " leader lease again", leadership.whyNot());
      leading = false;
      List<MessageConsumer<?>> registered = consumers;
      consumers = null;
      Future.all(registered == null ? List.of()
              : registered.stream().map(MessageConsumer::unregister).toList())
          .onComplete(done -> changingHands = false);
      return;
    }
    record Left(List<KnownAgent> agents, List<Run> active) {}
    vertx.executeBlocking(() -> new Left(agents.agents(), sweeps.activeRuns()), false)
        .compose(left -> {
          left.agents().forEach(fleet::remember);
          leading = true;
          queues.restore(left.active());
          LOG.warn("leading now: taking over intake, dispatch and schedules ({} agent(s), {} run(s) in progress)",
              left.agents().size(), left.active().size());
          return intake.register();
        })
        .onComplete(done -> {
          changingHands = false;
          if (done.failed()) {
            // Tried again on the next tick: leading stays false until the store and the consumers are there.
            LOG.error("cannot take over as leader", done.cause());
            leading = false;
            return;
          }
          consumers = done.result();
          queues.wake(fleet.devices());
        });
  }
}
