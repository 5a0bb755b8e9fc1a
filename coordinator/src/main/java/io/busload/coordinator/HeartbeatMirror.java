package io.busload.coordinator;

import io.busload.coordinator.fleet.Fleet;
import io.busload.coordinator.store.AgentStore;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader keeps each agent's last heartbeat in the store; a hot standby reads it back, so that its REST API (and a
 * dashboard pointed at it) shows which agents are online, a few seconds late, rather than all offline. Only the
 * leader hears heartbeats, so which way the mirror runs follows {@link LeaderRole#leading()}; a standby drops what it
 * read while leadership changes hands, when the store may be behind the fleet it is taking over. Called on the
 * verticle's event loop; the store is written and read on workers, one mirror at a time.
 */
final class HeartbeatMirror {
  /** The verticle's logger, next to its other lines about agents' heartbeats. */
  private static final Logger LOG = LoggerFactory.getLogger(CoordinatorVerticle.class);
  /** How often (in ticks) the leader writes agents' last heartbeats and a standby reads them. */
  private static final int MIRROR_TICKS = 2;

  private final Vertx vertx;
  private final AgentStore agents;
  private final Fleet fleet;
  private final Clock clock;
  private final LeaderRole role;
  private boolean mirroring;
  private Instant lastMirrored = Instant.EPOCH;

  HeartbeatMirror(Vertx vertx, AgentStore agents, Fleet fleet, Clock clock, LeaderRole role) {
    this.vertx = vertx;
    this.agents = agents;
    this.fleet = fleet;
    this.clock = clock;
    this.role = role;
  }

  /** Mirrors on every {@link #MIRROR_TICKS}th of the verticle's ticks (numbered from 0), as of {@code now}. */
  void tick(long tick, Instant now) {
    if (tick % MIRROR_TICKS == 0) {
      mirror(now);
    }
  }

  private void mirror(Instant now) {
    if (mirroring) {
      return;
    }
    mirroring = true;
    if (role.leading()) {
      Map<String, Instant> heard = fleet.heardSince(lastMirrored);
      Instant upTo = now;
      vertx.executeBlocking(() -> {
        agents.touchAgents(heard);
        return null;
      }, false).onComplete(done -> {
        mirroring = false;
        if (done.succeeded()) {
          lastMirrored = upTo;
        } else {
          LOG.warn("cannot record when agents were last heard from: {}", done.cause().getMessage());
        }
      });
    } else {
      vertx.executeBlocking(agents::agents, false).onComplete(read -> {
        mirroring = false;
        if (read.succeeded() && !role.leading() && !role.changingHands()) {
          read.result().forEach(known -> fleet.mirror(known, clock.instant()));
        }
      });
    }
  }
}
