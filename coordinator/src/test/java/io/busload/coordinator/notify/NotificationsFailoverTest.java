package io.busload.coordinator.notify;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.coordinator.Coordinator;
import io.busload.coordinator.CoordinatorSettings;
import io.busload.coordinator.Fixtures;
import io.busload.coordinator.Http;
import io.busload.coordinator.TestDatabase;
import io.busload.coordinator.store.DatabaseSettings;
import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.cluster.ClusterSettings;
import io.busload.testsupport.Await;
import io.busload.testsupport.SettableClock;
import io.vertx.core.Vertx;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two coordinators on one PostgreSQL, as a lab runs a standby: the leader tells of an agent gone quiet, then stops,
 * and the standby that takes the lead scans the same fleet again. Each event is claimed in the store by its stable
 * key, so the new leader tells of what is new (a second agent gone quiet since) and sends nothing twice.
 */
class NotificationsFailoverTest {
  @TempDir Path dir;
  private final SettableClock clock = new SettableClock(Instant.now());
  private Vertx first;
  private Vertx second;
  private Coordinator leader;
  private Coordinator standby;

  @BeforeEach
  void start() throws Exception {
    DatabaseSettings database = TestDatabase.fresh();
    first = Vertx.vertx();
    second = Vertx.vertx();
    leader = Coordinator.deploy(first, settings("c1", database), clock).await(60, TimeUnit.SECONDS);
    // The lease is taken at start: the second to start stands by.
    standby = Coordinator.deploy(second, settings("c2", database), clock).await(60, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    for (Coordinator c : new Coordinator[] {leader, standby}) {
      if (c != null) {
        c.stop().await(20, TimeUnit.SECONDS);
      }
    }
    first.close().await(20, TimeUnit.SECONDS);
    second.close().await(20, TimeUnit.SECONDS);
  }

  private CoordinatorSettings settings(String name, DatabaseSettings database) {
    return new CoordinatorSettings(Http.tokensIn(dir.resolve(name)), "127.0.0.1", 0,
        new ClusterSettings("unused", "127.0.0.1", null, 5701, 0, List.of("127.0.0.1"), ClusterSettings.COORDINATOR),
        database);
  }

  private static boolean hello(Vertx vertx, String agent) {
    try {
      return vertx.eventBus().<Ack>request(Addresses.AGENT_HELLO, Fixtures.hello(agent, Fixtures.gpu(agent, 0)))
          .await(5, TimeUnit.SECONDS).body().ok();
    } catch (Exception e) {
      return false; // no intake on this coordinator (yet): it stands by
    }
  }

  /** Moves the clock past the offline setting and the scan's interval, then waits for {@code n} messages. */
  private void agentsGoQuiet(Receiver receiver, int n) throws InterruptedException {
    clock.advance(Duration.ofMinutes(2));
    Await.until(() -> receiver.requests.size() >= n, Duration.ofSeconds(30), n + " offline notice(s) received");
  }

  @Test
  void failover_newLeaderScansTheSameFleet_noMessageTwiceAndWhatIsNewIsTold() throws Exception {
    try (Receiver receiver = new Receiver(200)) {
      Http http = new Http(leader.httpPort());
      HttpResponse<String> offline = http.put("/api/notifications/settings", "{\"agentOfflineAfter\":\"PT1M\"}");
      assertThat(offline.statusCode()).as(offline.body()).isEqualTo(200);
      // No quiet period: only the claim of each event by its key stands between a rescan and a second message.
      HttpResponse<String> target = http.post("/api/notifications/targets", "{\"name\":\"ops\",\"kind\":\"webhook\","
          + "\"quiet\":\"PT0S\",\"secrets\":{\"url\":\"" + receiver.url("/hook")
          + "\",\"key\":\"k3y-of-the-ops-hook-77\"}}");
      assertThat(target.statusCode()).as(target.body()).isEqualTo(201);
      assertThat(hello(first, "a1")).as("the leader takes a1's hello").isTrue();
      assertThat(hello(second, "a1")).as("the standby has no intake").isFalse();

      agentsGoQuiet(receiver, 1);
      leader.stop().await(20, TimeUnit.SECONDS);
      leader = null;
      Await.until(() -> hello(second, "a2"), Duration.ofSeconds(30), "the standby took the lead (a2's hello taken)");
      agentsGoQuiet(receiver, 2);
      // Several of the new leader's scans (every 10 s of its clock) and deliveries (every second) go by.
      for (int i = 0; i < 5; i++) {
        clock.advance(Duration.ofSeconds(11));
        Thread.sleep(1500);
      }

      assertThat(receiver.requests).hasSize(2);
      List<String> agents = receiver.requests.stream().map(r -> {
        try {
          return JsonCodec.MAPPER.readTree(r.body()).get("details").get("agent").asText();
        } catch (java.io.IOException e) {
          throw new AssertionError(e);
        }
      }).toList();
      assertThat(agents).containsExactly("a1", "a2");
      assertThat(receiver.requests).allSatisfy(r -> assertThat(r.text()).contains("AGENT_OFFLINE"));
    }
  }
}
