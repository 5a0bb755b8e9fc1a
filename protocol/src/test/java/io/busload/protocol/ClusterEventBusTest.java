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
}
