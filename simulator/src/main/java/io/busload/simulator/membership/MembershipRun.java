package io.busload.simulator.membership;

import io.busload.protocol.cluster.ClusterSettings;
import io.busload.simulator.os.ChildJvm;
import io.busload.simulator.os.ProcStats;
import io.busload.simulator.os.Sockets;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.BooleanSupplier;

/**
 * Grows a cluster of member processes through the sizes asked for and measures each size: one data member (the
 * coordinator's role) and lite members (the agents' role), all started through the fleet's own cluster settings.
 * At each size: a steady window (connections, traffic, CPU, memory), then one more member joins and is killed
 * with {@code kill -9} (join time, time until every member saw it come and go).
 */
public final class MembershipRun implements AutoCloseable {
  /**
   * Options, resolved once.
   *
   * @param heap {@code -Xmx} of each lite member, as java reads it ({@code 64m})
   * @param dataHeap {@code -Xmx} of the data member, the coordinator's role: it holds every partition, and on the
   *     16-core machine 48m ran out of heap at about 80 members (2026-11-25), which ended the cluster
   * @param batch members started at once while growing (a join storm of that width)
   * @param deadline after which no wait goes on and no size starts: the run returns the sizes measured so far
   */
  record Options(List<Integer> sizes, String heap, String dataHeap, Duration window, int basePort, int batch, Path workDir,
      long minFreeBytes, Deadline deadline) {}

  private final Options options;
  private final PrintStream log;
  private final String cluster = "busload-sim-" + UUID.randomUUID().toString().substring(0, 8);
  private final List<Member> members = new ArrayList<>();
  private int nextIndex;
  /** Why growing stopped short, for the log. */
  private String why = "";

  public MembershipRun(Options options, PrintStream log) {
    this.options = options;
    this.log = log;
  }

  public List<SizeFigures> run() throws Exception {
    Files.createDirectories(options.workDir());
    writeLogbackConfig();
    List<SizeFigures> figures = new ArrayList<>();
    if (options.deadline().passed()) {
      log.println("the deadline (--deadline) passed before the first member started");
      return figures;
    }
    Member seed = spawn(ClusterSettings.COORDINATOR);
    await("seed member started", Duration.ofMinutes(3), () -> seed.started().isPresent() || !seed.process.isAlive());
    if (!seed.process.isAlive()) {
      throw new IllegalStateException("the seed member exited; see " + logOf(seed));
    }
    for (int size : options.sizes()) {
      if (options.deadline().passed()) {
        log.printf("stopped before %d members: the deadline (--deadline) passed%n", size);
        break;
      }
      if (!grow(size)) {
        log.printf("stopped growing at %d live members: %s%n",
            members.stream().filter(m -> m.process.isAlive()).count(), why);
        break;
      }
      figures.add(measure(size));
      SizeFigures f = figures.getLast();
      log.printf("N=%d: %d connections, %.0f B/s, %.3f cores, RSS %.0f MiB, join %.2f s, departure seen in %.2f s"
          + " (max; load %.2f)%n", f.members(), f.connections(), f.bytesPerSecond(), f.cpuCores(),
          f.rssBytesMedian() / 1048576.0, f.joinSeconds(), f.departureSeenMaxSeconds(), f.loadAverage());
    }
    return figures;
  }

  /** Starts members, {@code batch} at a time, until {@code size} are up and each sees them all. */
  private boolean grow(int size) throws Exception {
    while (members.size() < size) {
      if (options.deadline().passed()) {
        why = "the deadline (--deadline) passed";
        return false;
      }
      long available = availableMemory();
      if (available < options.minFreeBytes()) {
        why = String.format("only %d MiB of memory left", available / 1048576);
        return false;
      }
      List<Member> batch = new ArrayList<>();
      for (int i = 0; i < options.batch() && members.size() < size; i++) {
        batch.add(spawn(ClusterSettings.AGENT));
      }
      boolean up = await("members " + batch.getFirst().index + ".." + batch.getLast().index + " started",
          Duration.ofMinutes(5), () -> batch.stream().allMatch(m -> m.started().isPresent() || !m.process.isAlive()));
      List<Member> dead = batch.stream().filter(m -> !m.process.isAlive()).toList();
      if (!up || !dead.isEmpty()) {
        why = options.deadline().passed() && dead.isEmpty() ? "the deadline (--deadline) passed while members started"
            : "member(s) did not start: " + dead.stream().map(this::logOf).toList();
        return false;
      }
      // Each batch settles before the next: growing measures the cluster, not a storm of JVMs compiling at once.
      int now = members.size();
      if (!await(now + " members seeing " + now, Duration.ofMinutes(3),
          () -> members.stream().allMatch(m -> m.sees() == now))) {
        why = options.deadline().passed() ? "the deadline (--deadline) passed while " + now + " members converged"
            : "members did not all see " + now + " members within 3 min (see member-*.log: expired heartbeats?)";
        return false;
      }
    }
    boolean converged = await(size + " members seeing " + size, Duration.ofMinutes(3),
        () -> members.stream().allMatch(m -> m.sees() == size));
    if (!converged) {
      why = options.deadline().passed() ? "the deadline (--deadline) passed while " + size + " members converged"
          : "members did not all see " + size + " members within 3 min";
    }
    return converged;
  }

  private SizeFigures measure(int size) throws Exception {
    Thread.sleep(5_000);
    Set<Integer> ports = ports();
    List<Long> pids = members.stream().map(m -> m.process.pid()).toList();
    Sockets before = Sockets.among(ports);
    ProcStats cpuBefore = ProcStats.sum(pids);
    long seedPid = members.getFirst().process.pid();
    double seedBefore = ProcStats.of(seedPid).map(ProcStats::cpuSeconds).orElse(Double.NaN);
    long start = System.nanoTime();
    Thread.sleep(options.window().toMillis());
    Sockets after = Sockets.among(ports);
    ProcStats cpuAfter = ProcStats.sum(pids);
    ProcStats seedAfter = ProcStats.of(seedPid).orElse(new ProcStats(Double.NaN, 0));
    double seconds = (System.nanoTime() - start) / 1e9;
    List<Long> rss = new ArrayList<>();
    List<Long> heap = new ArrayList<>();
    for (Member m : members) {
      ProcStats.of(m.process.pid()).ifPresent(s -> rss.add(s.rssBytes()));
      m.lastStat().ifPresent(s -> heap.add(s.a()));
    }
    double load = ProcStats.loadAverage();
    // One more member joins a cluster of `size`, then dies without a word.
    Member probe = spawn(ClusterSettings.AGENT);
    await("probe started", Duration.ofMinutes(3), () -> probe.started().isPresent() || !probe.process.isAlive());
    Optional<Member.Line> started = probe.started();
    double join = Double.NaN;
    double seenByAll = Double.NaN;
    double departureMedian = Double.NaN;
    double departureMax = Double.NaN;
    if (started.isPresent()) {
      int port = probe.port();
      long joinStarted = started.get().at() - started.get().a();
      join = started.get().a() / 1000.0;
      List<Member> others = members.stream().filter(m -> m != probe).toList();
      if (await("everyone sees the probe", Duration.ofMinutes(1),
          () -> others.stream().allMatch(m -> m.saw("added", port).isPresent()))) {
        seenByAll = (others.stream().mapToLong(m -> m.saw("added", port).orElseThrow()).max().orElseThrow()
            - joinStarted) / 1000.0;
      }
      Thread.sleep(2_000);
      long killed = System.currentTimeMillis();
      probe.process.destroyForcibly();
      probe.process.waitFor();
      boolean allSaw = await("everyone sees the probe gone", Duration.ofMinutes(1),
          () -> others.stream().allMatch(m -> m.saw("removed", port).isPresent()));
      List<Long> delays = others.stream().map(m -> m.saw("removed", port)).flatMap(Optional::stream)
          .map(t -> t - killed).sorted().toList();
      if (!delays.isEmpty()) {
        departureMedian = delays.get(delays.size() / 2) / 1000.0;
        departureMax = allSaw ? delays.getLast() / 1000.0 : Double.NaN;
      }
    }
    members.remove(probe);
    return new SizeFigures(size, after.connections(), after.receivedSince(before) / seconds,
        (cpuAfter.cpuSeconds() - cpuBefore.cpuSeconds()) / seconds, ChildJvm.median(rss), ChildJvm.median(heap), join,
        seenByAll, departureMedian, departureMax, (seedAfter.cpuSeconds() - seedBefore) / seconds,
        seedAfter.rssBytes(), seconds, load, after.source());
  }

  private Set<Integer> ports() {
    Set<Integer> ports = new HashSet<>();
    for (Member m : members) {
      int port = m.port();
      if (port > 0) {
        ports.add(port);
      }
    }
    return ports;
  }

  private Member spawn(String role) throws IOException {
    int index = nextIndex++;
    int port = options.basePort() + index;
    Path status = options.workDir().resolve("member-" + index + ".status");
    Files.deleteIfExists(status);
    List<String> command = ChildJvm.java();
    // One processor as the JVM sees it: Hazelcast and Netty size their thread pools by it, and a member that
    // serves one agent needs no more; this keeps a hundred members on two cores.
    command.addAll(List.of("-XX:ActiveProcessorCount=1", "-Xms16m", "-Xmx" + (ClusterSettings.COORDINATOR.equals(role) ? options.dataHeap() : options.heap()), "-Xss512k",
        "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1", "-XX:ReservedCodeCacheSize=32m",
        "-XX:MaxDirectMemorySize=64m", "-Dlogback.configurationFile=" + options.workDir().resolve("member-logback.xml"),
        "-cp", System.getProperty("java.class.path"), MemberMain.class.getName(), cluster, Integer.toString(port),
        Integer.toString(options.basePort()), role, status.toString()));
    Process process = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(options.workDir().resolve("member-" + index + ".log").toFile()).start();
    Member member = new Member(index, process, status);
    members.add(member);
    return member;
  }

  private String logOf(Member m) {
    return options.workDir().resolve("member-" + m.index + ".log").toString();
  }

  private void writeLogbackConfig() throws IOException {
    Files.writeString(options.workDir().resolve("member-logback.xml"), """
        <configuration>
          <appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
            <encoder><pattern>%d{HH:mm:ss.SSS} %-5level %logger{20} - %msg%n</pattern></encoder>
          </appender>
          <root level="WARN"><appender-ref ref="OUT"/></root>
        </configuration>
        """);
  }

  /** Waits as {@link ChildJvm#await} does, but never past the deadline. */
  private boolean await(String what, Duration limit, BooleanSupplier done) throws InterruptedException {
    return ChildJvm.await(log, what, options.deadline().cap(limit), Duration.ofMillis(250), done);
  }

  private static long availableMemory() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
        if (line.startsWith("MemAvailable:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException e) {
      // Unknown: do not stop on it.
    }
    return Long.MAX_VALUE;
  }

  /** Kills every member (they hold no data worth a graceful leave, and a leave of 100 takes minutes). */
  @Override
  public void close() {
    members.forEach(m -> m.process.destroyForcibly());
    for (Member m : members) {
      try {
        m.process.waitFor();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
