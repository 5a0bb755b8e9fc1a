package io.busload.coordinator.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.coordinator.TestDatabase;
import java.sql.Connection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The leader lease on a real PostgreSQL: one holder at a time, and the session's end hands it on. */
class LeaderLeaseTest {
  @RegisterExtension final OpenDatabase database = new OpenDatabase();

  @Test
  void lease_heldByOne_otherTakesItOnlyAfterTheHolderCloses() {
    try (LeaderLease first = new LeaderLease(database.db()); LeaderLease second = new LeaderLease(database.db())) {
      assertThat(first.renew()).as("first takes it").isTrue();
      assertThat(second.renew()).as("second while the first holds it").isFalse();
      assertThat(first.renew()).as("first keeps it").isTrue();
      first.close();
      assertThat(first.holds()).isFalse();
      assertThat(second.renew()).as("second after the first closed").isTrue();
      assertThat(first.renew()).as("a closed lease takes nothing").isFalse();
    }
  }

  @Test
  void lease_holdersSessionEnds_holderStepsDownAndOtherTakesIt() throws Exception {
    try (LeaderLease first = new LeaderLease(database.db()); LeaderLease second = new LeaderLease(database.db())) {
      assertThat(first.renew()).isTrue();
      assertThat(second.renew()).isFalse();
      // What the server does to a session whose host went silent, or what an operator's pg_terminate_backend does.
      try (Connection c = TestDatabase.connect(database.settings())) {
        assertThat(TestDatabase.first(c, "SELECT pg_terminate_backend(pid) FROM pg_locks"
            + " WHERE locktype = 'advisory' AND granted AND objid = " + (LeaderLease.KEY & 0xffffffffL)))
            .isEqualTo("t");
      }
      // The server ends the session a moment after pg_terminate_backend returns: the other takes it within renewals.
      long giveUp = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
      boolean taken = second.renew();
      while (!taken && System.nanoTime() < giveUp) {
        Thread.sleep(50);
        taken = second.renew();
      }
      assertThat(taken).as("the other, within its next renewals").isTrue();
      assertThat(first.holds()).as("the old holder before its next renewal").isTrue();
      assertThat(first.renew()).as("the old holder finds its session gone and the lease taken").isFalse();
      assertThat(second.renew()).as("the new holder keeps it").isTrue();
      assertThat(first.reachable()).as("the database still answers the old holder").isTrue();
    }
  }
}
