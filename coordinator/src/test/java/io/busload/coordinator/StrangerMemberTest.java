package io.busload.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.cluster.Member;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.busload.coordinator.store.DatabaseSettings;
import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.cluster.ClusterSettings;
import io.busload.testsupport.LoopbackCluster;
import io.busload.testsupport.SettableClock;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.Serializable;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stranger on the cluster port: a Hazelcast data member made here, with its own classes and settings of its own
 * choosing, that knows the cluster name and so joins (Hazelcast open source authenticates no member). It joins first,
 * so it is the oldest member. The coordinator must still lead, take hellos, fire its schedule, and refuse to
 * deserialize a class outside its allow-list; the gadget's {@code readObject} must never run.
 */
class StrangerMemberTest {
  private static final DeviceInfo GPU = Fixtures.gpu("stranger-host", 0);
  private static final String EVERY_HOUR = Fixtures.hourlySchedule(GPU);

  @TempDir Path dir;

  @Test
  void coordinator_strangerIsOldestDataMember_stillLeadsIntakeAndSchedules() throws Exception {
    DatabaseSettings database = TestDatabase.fresh();
    SettableClock clock = new SettableClock(Instant.parse("2026-11-01T09:59:30Z"));
    try (LoopbackCluster cluster = new LoopbackCluster("busload-stranger")) {
      HazelcastInstance stranger = stranger(cluster);
      Coordinator coordinator = coordinator(cluster, database, clock);
      assertThat(oldestDataMember(stranger).localMember()).as("the stranger is the oldest data member").isTrue();

      Vertx agentSide = cluster.join(ClusterSettings.AGENT);
      Ack hello = agentSide.eventBus().<Ack>request(Addresses.AGENT_HELLO, Fixtures.hello("stranger-agent", GPU))
          .await(15, TimeUnit.SECONDS).body();
      assertThat(hello.ok()).as("the coordinator takes the hello: " + hello).isTrue();

      Http http = new Http(coordinator.httpPort());
      HttpResponse<String> created = http.post("/api/schedules", EVERY_HOUR);
      assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
      clock.set(Instant.parse("2026-11-01T10:00:05Z"));
      long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (count(database, "schedule_fires") < 1) {
        assertThat(System.nanoTime()).as("the schedule fires within 20 s").isLessThan(until);
        Thread.sleep(200);
      }
      Thread.sleep(3000); // more ticks: a second leader would fire it again, or queue a second sweep
      assertThat(count(database, "schedule_fires")).isEqualTo(1);
      assertThat(count(database, "sweeps")).isEqualTo(1);
    }
  }

  @Test
  void coordinator_strangerSendsSerializedGadget_refusedAndNeverRead() throws Exception {
    DatabaseSettings database = TestDatabase.fresh();
    try (LoopbackCluster cluster = new LoopbackCluster("busload-stranger")) {
      HazelcastInstance stranger = stranger(cluster);
      coordinator(cluster, database, new SettableClock(Instant.parse("2026-11-01T09:59:30Z")));
      Member target = stranger.getCluster().getMembers().stream().filter(m -> !m.localMember()).findFirst()
          .orElseThrow();
      Gadget.READS.set(0);
      Gadget.CALLS.set(0);

      // Hazelcast's executor deserializes a task on the member it is sent to and runs it there.
      var task = stranger.getExecutorService("stranger-tasks").submitToMember(new Gadget(), target);
      assertThatThrownBy(() -> task.get(20, TimeUnit.SECONDS))
          .as("the coordinator refuses the gadget's class")
          .isInstanceOf(ExecutionException.class)
          .hasStackTraceContaining("Resolving class " + Gadget.class.getName() + " is not allowed");
      assertThat(Gadget.READS).as("readObject calls on the coordinator's side").hasValue(0);
      assertThat(Gadget.CALLS).as("gadget tasks run").hasValue(0);
    }
  }

  /** A data member with the fleet's cluster name and nothing else of Busload's: no filter, its own port. */
  private static HazelcastInstance stranger(LoopbackCluster cluster) {
    Config config = new Config();
    config.setClusterName(cluster.name());
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.setProperty("hazelcast.logging.type", "slf4j");
    config.setProperty("hazelcast.socket.bind.any", "false");
    config.getNetworkConfig().setPort(cluster.port()).setPortAutoIncrement(true).setPortCount(20);
    config.getNetworkConfig().getInterfaces().setEnabled(true).addInterface(LoopbackCluster.HOST);
    JoinConfig join = config.getNetworkConfig().getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    join.getTcpIpConfig().setEnabled(true).addMember(LoopbackCluster.HOST);
    HazelcastInstance stranger = Hazelcast.newHazelcastInstance(config);
    cluster.onClose(stranger::shutdown);
    return stranger;
  }

  private Coordinator coordinator(LoopbackCluster cluster, DatabaseSettings database, SettableClock clock)
      throws Exception {
    return ClusterCoordinator.start(cluster, ClusterCoordinator.settings(cluster, dir.resolve("c"), database), clock);
  }

  private static Member oldestDataMember(HazelcastInstance member) {
    return member.getCluster().getMembers().stream().filter(m -> !m.isLiteMember()).findFirst().orElseThrow();
  }

  private static long count(DatabaseSettings database, String table) throws Exception {
    try (Connection c = TestDatabase.connect(database)) {
      return Long.parseLong(TestDatabase.first(c, "SELECT COUNT(*) FROM " + table));
    }
  }

  /**
   * Stands for a deserialization gadget: a class on the coordinator's class path whose {@code readObject} does
   * something. Its package is the test's, outside the allow-list, as every library gadget's is.
   */
  static final class Gadget implements Callable<String>, Serializable {
    static final AtomicInteger READS = new AtomicInteger();
    static final AtomicInteger CALLS = new AtomicInteger();

    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
      in.defaultReadObject();
      READS.incrementAndGet();
    }

    @Override
    public String call() {
      CALLS.incrementAndGet();
      return "ran";
    }
  }
}
