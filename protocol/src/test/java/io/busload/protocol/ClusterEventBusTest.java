package io.busload.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.protocol.cluster.Cluster;
import io.busload.protocol.cluster.ClusterSettings;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Two real Hazelcast members on loopback exchange a record through the registered codec. */
class ClusterEventBusTest {

  @Test
  void twoMembers_requestWithRecord_repliesWithAck() throws Exception {
    String name = "busload-test-" + UUID.randomUUID();
    int port = 15701 + (int) (Math.random() * 200);
    List<String> members = List.of("127.0.0.1");
    Vertx coordinator = Cluster.start(new ClusterSettings(name, "127.0.0.1", null, port, 0, members,
        ClusterSettings.COORDINATOR)).await(60, TimeUnit.SECONDS);
    Vertx agent = Cluster.start(new ClusterSettings(name, "127.0.0.1", null, port, 0, members,
        ClusterSettings.AGENT)).await(60, TimeUnit.SECONDS);
    try {
      coordinator.eventBus().<KernelResult>consumer(Addresses.RESULTS,
          message -> message.reply(Ack.ok(message.body().id().toString()))).completion().await(10, TimeUnit.SECONDS);
      KernelResult sent = JsonCodecTest.result(true);

      Ack ack = agent.eventBus().<Ack>request(Addresses.RESULTS, sent).await(20, TimeUnit.SECONDS).body();

      assertThat(ack.ok()).isTrue();
      assertThat(ack.id()).isEqualTo(sent.id().toString());
    } finally {
      agent.close().await(20, TimeUnit.SECONDS);
      coordinator.close().await(20, TimeUnit.SECONDS);
    }
  }

  @Test
  void join_liteMemberBeforeAnyCoordinator_waitsAndJoinsOnceOneIsUp() throws Exception {
    String name = "busload-test-" + UUID.randomUUID();
    int port = 16101 + (int) (Math.random() * 200);
    List<String> members = List.of("127.0.0.1");
    java.util.concurrent.CompletableFuture<Vertx> agent = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
      try {
        return Cluster.join(new ClusterSettings(name, "127.0.0.1", null, port, 0, members, ClusterSettings.AGENT),
            java.time.Duration.ofSeconds(1), java.time.Duration.ofSeconds(90));
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
    Thread.sleep(4000);
    assertThat(agent).isNotDone();
    Vertx coordinator = Cluster.start(new ClusterSettings(name, "127.0.0.1", null, port, 0, members,
        ClusterSettings.COORDINATOR)).await(60, TimeUnit.SECONDS);
    try {
      Vertx joined = agent.get(90, TimeUnit.SECONDS);
      coordinator.eventBus().<Ack>consumer(Addresses.RUN_STATUS, m -> m.reply(Ack.ok("pong")))
          .completion().await(10, TimeUnit.SECONDS);
      assertThat(joined.eventBus().<Ack>request(Addresses.RUN_STATUS, Ack.ok("ping")).await(20, TimeUnit.SECONDS)
          .body().id()).isEqualTo("pong");
      joined.close().await(20, TimeUnit.SECONDS);
    } finally {
      coordinator.close().await(20, TimeUnit.SECONDS);
    }
  }
}
