package io.busload.coordinator.schedule;

import io.busload.coordinator.store.LeaderLease;

/**
 * Whether this coordinator leads: the one holding the {@link LeaderLease} in the shared PostgreSQL does. Only the
 * leader takes intake, dispatches runs and fires schedules. Membership of the Hazelcast cluster has no say: any
 * process that knows the cluster name can join it, and the oldest member could be such a stranger. A coordinator
 * that cannot reach the database does not lead, which costs nothing: it could store no result and fire no schedule.
 */
public final class Leadership {
  private final LeaderLease lease;

  public Leadership(LeaderLease lease) {
    this.lease = lease;
  }

  /** As of the lease's last renewal (every coordinator tick); reads a flag, so the event loop may call it. */
  public boolean leads() {
    return lease.holds();
  }

  /** Why this coordinator does not lead, for its log. */
  public String whyNot() {
    return lease.reachable() ? "another coordinator holds the leader lease" : "the database cannot be reached";
  }
}
