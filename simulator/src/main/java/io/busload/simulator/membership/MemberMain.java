package io.busload.simulator.membership;

import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import io.busload.protocol.cluster.Cluster;
import io.busload.protocol.cluster.ClusterSettings;
import io.vertx.core.Vertx;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One member process: {@code MemberMain CLUSTER PORT SEED_PORT ROLE STATUS_FILE}. Joins through the fleet's own
 * {@link Cluster#start} (the settings agents run with) and appends what it sees to the status file, one event a
 * line, with the wall-clock time it saw it: the parent reads join and departure times from these lines.
 */
public final class MemberMain {
  private MemberMain() {}

  public static void main(String[] args) throws Exception {
    String cluster = args[0];
    int port = Integer.parseInt(args[1]);
    int seedPort = Integer.parseInt(args[2]);
    String role = args[3];
    Path status = Path.of(args[4]);
    PrintWriter out = new PrintWriter(Files.newBufferedWriter(status, StandardCharsets.UTF_8,
        StandardOpenOption.CREATE, StandardOpenOption.APPEND), true);
    long jvmStart = ManagementFactory.getRuntimeMXBean().getStartTime();
    long before = System.currentTimeMillis();
    ClusterSettings settings = new ClusterSettings(cluster, "127.0.0.1", null, port, 0,
        List.of("127.0.0.1:" + seedPort), role);
    Vertx vertx = Cluster.start(settings).await(5, TimeUnit.MINUTES);
    HazelcastClusterManager manager = Cluster.hazelcast(vertx);
    var hazelcast = manager.getHazelcastInstance();
    int localPort = hazelcast.getCluster().getLocalMember().getAddress().getPort();
    synchronized (out) {
      out.printf("started %d %d %d %d %d%n", System.currentTimeMillis(), System.currentTimeMillis() - before,
          before - jvmStart, localPort, hazelcast.getCluster().getMembers().size());
    }
    hazelcast.getCluster().addMembershipListener(new MembershipListener() {
      @Override
      public void memberAdded(MembershipEvent event) {
        line("added", event);
      }

      @Override
      public void memberRemoved(MembershipEvent event) {
        line("removed", event);
      }

      private void line(String what, MembershipEvent event) {
        synchronized (out) {
          out.printf("%s %d %d %d%n", what, System.currentTimeMillis(), event.getMember().getAddress().getPort(),
              event.getMembers().size());
        }
      }
    });
    // Heap in use now and the members seen, every few seconds: the parent takes the last line of each member.
    Runtime runtime = Runtime.getRuntime();
    vertx.setPeriodic(5_000, id -> {
      synchronized (out) {
        out.printf("stat %d %d %d %d%n", System.currentTimeMillis(), runtime.totalMemory() - runtime.freeMemory(),
            runtime.totalMemory(), hazelcast.getCluster().getMembers().size());
      }
    });
    Thread.currentThread().join();
  }
}
