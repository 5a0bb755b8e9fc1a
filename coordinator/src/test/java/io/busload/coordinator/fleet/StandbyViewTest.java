package io.busload.coordinator.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.coordinator.AgentDouble;
import io.busload.coordinator.ClusterCoordinator;
import io.busload.coordinator.Coordinator;
import io.busload.coordinator.Fixtures;
import io.busload.coordinator.Http;
import io.busload.coordinator.TestDatabase;
import io.busload.coordinator.store.DatabaseSettings;
import io.busload.protocol.cluster.ClusterSettings;
import io.busload.testsupport.LoopbackCluster;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two coordinators in one cluster on one store, an agent on a member of its own: only the leader hears its
 * heartbeats, and the hot standby's REST API shows it online (and later offline) all the same, from the last
 * heartbeats the leader keeps in the store.
 */
class StandbyViewTest {
  @TempDir Path dir;

  @Test
  void standby_showsAgentsOnlineAndOfflineAsTheLeaderHearsThem() throws Exception {
    DatabaseSettings database = TestDatabase.fresh();
    List<Coordinator> coordinators = new ArrayList<>();
    try (LoopbackCluster cluster = new LoopbackCluster("busload-standby")) {
      for (int i = 0; i < 2; i++) {
        coordinators.add(ClusterCoordinator.start(cluster,
            ClusterCoordinator.settings(cluster, dir.resolve("c" + i), database)));
      }
      Vertx agentSide = cluster.join(ClusterSettings.AGENT);
      Http leader = new Http(coordinators.get(0).httpPort());
      Http standby = new Http(coordinators.get(1).httpPort());
      long started = System.nanoTime();
      AgentDouble agent = new AgentDouble(agentSide, Fixtures.hello("standby-agent", Fixtures.gpu("standby-host", 0)));

      JsonNode seen = await(standby, a -> a.get("online").asBoolean(), Duration.ofSeconds(20), "online on the standby");
      double onlineAfter = (System.nanoTime() - started) / 1e9;
      assertThat(onlineOf(leader)).as("online on the leader").isTrue();
      assertThat(seen.get("agentId").asText()).isEqualTo("standby-agent");
      // Stays online while heartbeats go on: no flicker between the leader's writes and the standby's reads.
      for (int i = 0; i < 15; i++) {
        assertThat(onlineOf(standby)).as("still online on the standby after %d s", i).isTrue();
        Thread.sleep(1000);
      }

      agent.close();
      long stopped = System.nanoTime();
      await(standby, a -> !a.get("online").asBoolean(), Duration.ofSeconds(30), "offline on the standby");
      double offlineAfter = (System.nanoTime() - stopped) / 1e9;
      assertThat(onlineOf(leader)).as("offline on the leader").isFalse();
      assertThat(offlineAfter).as("offline within the heartbeat timeout and a few mirror ticks")
          .isLessThan(Fleet.OFFLINE_AFTER.toSeconds() + 8);
      System.out.printf("standby view: agent online on the standby %.1f s after its hello, stayed online 15 s,"
          + " offline %.1f s after its last heartbeat (timeout %d s)%n", onlineAfter, offlineAfter,
          Fleet.OFFLINE_AFTER.toSeconds());
    }
  }

  private static boolean onlineOf(Http http) {
    return Http.json(http.get("/api/agents")).get(0).get("online").asBoolean();
  }

  private static JsonNode await(Http http, Predicate<JsonNode> agent, Duration patience, String what)
      throws InterruptedException {
    long until = System.nanoTime() + patience.toNanos();
    while (true) {
      JsonNode agents = Http.json(http.get("/api/agents"));
      if (agents.size() == 1 && agent.test(agents.get(0))) {
        return agents.get(0);
      }
      if (System.nanoTime() > until) {
        throw new AssertionError("not within " + patience + ": " + what + "; agents: " + agents);
      }
      Thread.sleep(200);
    }
  }
}
