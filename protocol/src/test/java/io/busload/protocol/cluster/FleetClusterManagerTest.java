package io.busload.protocol.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The fleet's two event-bus repairs, on real Hazelcast members over loopback, through nothing but Vert.x's
 * cluster-manager SPI: re-reading the routes an agent's event bus holds (SplitRepair), and republishing a lite
 * member's entries for a coordinator that joins a cluster that had none (CoordinatorReturn). A Vert.x that stopped
 * handing its route cache to the cluster manager, or stopped asking the manager for routes, fails here.
 */
class FleetClusterManagerTest {
  private static final String AT_COORDINATOR = "busload.test.at-coordinator";
  private static final String AT_AGENT = "busload.test.at-agent";
  private final List<Vertx> members = new ArrayList<>();
  private final String name = "busload-test-" + UUID.randomUUID();
  private int port;

  @AfterEach
  void close() {
    for (Vertx member : members.reversed()) {
      try {
        member.close().await(30, TimeUnit.SECONDS);
      } catch (Exception e) {
        // already terminated by the test
      }
    }
  }

  @Test
  void rereadRoutes_afterTheAgentSentToAnAddress_readsExactlyTheAddressesItsEventBusRoutes() throws Exception {
    Vertx coordinator = join(ClusterSettings.COORDINATOR);
    Vertx agent = join(ClusterSettings.AGENT);
    coordinator.eventBus().<String>consumer(AT_COORDINATOR, m -> m.reply("pong")).completion()
        .await(10, TimeUnit.SECONDS);
    FleetClusterManager manager = Cluster.fleet(agent);
    assertThat(manager).as("Cluster.start builds the fleet's cluster manager").isNotNull();
    assertThat(manager.routedAddresses()).doesNotContain(AT_COORDINATOR);

    assertThat(request(agent, AT_COORDINATOR)).isEqualTo("pong");

    assertThat(manager.routedAddresses())
        .as("Vert.x changed: the event bus no longer hands its route cache to ClusterManager.registrationListener, "
            + "or no longer asks ClusterManager.getRegistrations for an address it sends to; SplitRepair needs both")
        .contains(AT_COORDINATOR);
    assertThat(manager.rereadRoutes().await(10, TimeUnit.SECONDS)).isEqualTo(manager.routedAddresses());
    assertThat(request(agent, AT_COORDINATOR)).as("routes re-read still lead to the consumer").isEqualTo("pong");
  }

  @Test
  void coordinatorReturn_afterTheOnlyCoordinatorDiedAndAnotherJoined_bothWaysAreAnswered() throws Exception {
    Vertx first = join(ClusterSettings.COORDINATOR);
    Vertx agent = join(ClusterSettings.AGENT);
    CoordinatorReturn.install(agent);
    agent.eventBus().<String>consumer(AT_AGENT, m -> m.reply("agent")).completion().await(10, TimeUnit.SECONDS);
    assertThat(request(first, AT_AGENT)).isEqualTo("agent");

    // kill -9 of the only data member: the agent's node info and registrations go with it.
    Cluster.hazelcast(first).getHazelcastInstance().getLifecycleService().terminate();
    Vertx second = join(ClusterSettings.COORDINATOR);
    second.eventBus().<String>consumer(AT_COORDINATOR, m -> m.reply("coordinator")).completion()
        .await(10, TimeUnit.SECONDS);

    assertThat(eventually(() -> request(second, AT_AGENT), Duration.ofSeconds(60)))
        .as("the new coordinator reaches the agent's consumer").isEqualTo("agent");
    assertThat(eventually(() -> request(agent, AT_COORDINATOR), Duration.ofSeconds(60)))
        .as("the new coordinator's answer reaches the agent").isEqualTo("coordinator");
  }

  private Vertx join(String role) throws Exception {
    if (port == 0) {
      try (ServerSocket free = new ServerSocket(0)) {
        port = free.getLocalPort();
      }
    }
    Vertx member = Cluster.start(new ClusterSettings(name, "127.0.0.1", null, port, 0, List.of("127.0.0.1"), role))
        .await(60, TimeUnit.SECONDS);
    members.add(member);
    return member;
  }

  private static String request(Vertx from, String address) throws Exception {
    return from.eventBus().<String>request(address, "ping", new DeliveryOptions().setSendTimeout(5_000))
        .await(10, TimeUnit.SECONDS).body();
  }

  private interface Attempt {
    String get() throws Exception;
  }

  private static String eventually(Attempt attempt, Duration within) throws Exception {
    long deadline = System.nanoTime() + within.toNanos();
    while (true) {
      try {
        return attempt.get();
      } catch (Exception e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(500);
      }
    }
  }
}
