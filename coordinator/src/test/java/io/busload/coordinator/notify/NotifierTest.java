package io.busload.coordinator.notify;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.analysis.cohort.CohortFlag;
import io.busload.coordinator.Fixtures;
import io.busload.coordinator.TestDatabase;
import io.busload.coordinator.store.AgentStore;
import io.busload.coordinator.store.Database;
import io.busload.coordinator.store.NotificationStore;
import io.busload.coordinator.store.NotificationStore.Delivery;
import io.busload.coordinator.store.NotificationStore.Filter;
import io.busload.coordinator.store.NotificationStore.Settings;
import io.busload.coordinator.store.NotificationStore.Target;
import io.busload.coordinator.store.RunState;
import io.busload.coordinator.store.RunTarget;
import io.busload.coordinator.store.SweepStore;
import io.busload.coordinator.store.VerdictStore;
import io.busload.coordinator.store.VerdictStore.StoredChangePoint;
import io.busload.protocol.DeviceInfo;
import io.busload.testsupport.Await;
import io.busload.testsupport.SettableClock;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The notifier on a real PostgreSQL, with two notifiers on one store standing for two coordinators (a leader and
 * the one that takes over), and a real HTTP receiver.
 */
class NotifierTest {
  private static final Instant T = Instant.parse("2026-11-27T03:00:00Z");
  private static final String KEY = "0123456789abcdef-receiver-key";

  private Database db;
  private Vertx one;
  private Vertx two;
  private NotificationStore store;
  private AgentStore agents;
  private final SettableClock clock = new SettableClock(T);
  private final DeviceInfo gpu = Fixtures.gpu("n", 0);
  private final Map<Notifier, Vertx> homes = new IdentityHashMap<>();
  private Notifier first;
  private final AtomicReference<CohortState> cohort = new AtomicReference<>(new CohortState(List.of(), Set.of()));

  @BeforeEach
  void open() {
    db = Database.open(TestDatabase.fresh(), Path.of("target", "no-data-dir"));
    store = new NotificationStore(db);
    agents = new AgentStore(db);
    agents.saveAgent(Fixtures.hello("a1", gpu), T);
    store.saveSettings(new Settings("http://dash.example", 600, 100, 3));
    one = Vertx.vertx();
    two = Vertx.vertx();
  }

  @AfterEach
  void close() throws Exception {
    one.close().await(10, TimeUnit.SECONDS);
    two.close().await(10, TimeUnit.SECONDS);
    db.close();
  }

  /** A notifier as one coordinator has it, remembered with its Vert.x so ticks run on that one's event loop. */
  private Notifier notifier(Vertx vertx) {
    Notifier n = new Notifier(vertx, store, new VerdictStore(db), agents, new SweepStore(db), cohort::get, clock);
    homes.put(n, vertx);
    return n;
  }

  private Target target(String url, Filter filter, long quietSeconds) {
    Target t = new Target(UUID.randomUUID(), "hook " + UUID.randomUUID(), "webhook", Map.of(),
        Map.of("url", url, "key", KEY), filter, quietSeconds, "tests", T.minusSeconds(60));
    store.insertTarget(t);
    return t;
  }

  private static Filter all() {
    return new Filter(List.of(), "INFO", List.of(), List.of());
  }

  private StoredChangePoint change(Instant at, double fraction) {
    return new StoredChangePoint(UUID.randomUUID(), gpu.id(), gpu.name(), "stride_copy_fp32", "elements=1024;stride=4",
        fraction < 0 ? "REGRESSION" : "IMPROVEMENT", UUID.randomUUID(), UUID.randomUUID(), 2.0e12,
        2.0e12 * (1 + fraction), fraction, 0.002, 0.001, "{}", at, at);
  }

  /** Ticks the notifiers (as followers: sending only) until {@code done}. */
  private void deliverUntil(BooleanSupplier done, Notifier... notifiers) throws Exception {
    deliverUntil(false, done, notifiers);
  }

  private void deliverUntil(boolean leading, BooleanSupplier done, Notifier... notifiers) throws Exception {
    Await.until(() -> {
      for (Notifier n : notifiers) {
        tickOn(n, leading);
      }
      return done.getAsBoolean();
    }, Duration.ofSeconds(20), "deliveries done");
  }

  private void tickOn(Notifier n, boolean leading) {
    homes.get(n).runOnContext(v -> n.tick(leading));
  }

  @Test
  void changePoint_seenByTwoCoordinators_oneMessage() throws Exception {
    try (Receiver receiver = new Receiver(200)) {
      target(receiver.url("/hook"), all(), 0);
      first = notifier(one);
      Notifier other = notifier(two);
      StoredChangePoint change = change(T, -0.05);

      List<Integer> queued = Future.all(first.changePoints(List.of(change)), other.changePoints(List.of(change)))
          .map(all -> List.of(all.<Integer>resultAt(0), all.<Integer>resultAt(1))).await(20, TimeUnit.SECONDS);
      assertThat(queued).containsExactlyInAnyOrder(0, 1);

      deliverUntil(() -> store.deliveries(null, 10).getFirst().status().equals("SENT"), first, other);
      Thread.sleep(1000);
      for (int i = 0; i < 3; i++) {
        tickOn(first, false);
        tickOn(other, false);
      }
      Thread.sleep(1000);
      assertThat(receiver.requests).hasSize(1);
    }
  }

  @Test
  void secondChangeOfOneSeries_withinQuietPeriod_loggedSuppressedNotSent() throws Exception {
    try (Receiver receiver = new Receiver(200)) {
      Target quiet = target(receiver.url("/quiet"), all(), 3600);
      first = notifier(one);
      assertThat(first.changePoints(List.of(change(T, -0.05))).await(20, TimeUnit.SECONDS)).isEqualTo(1);
      clock.advance(Duration.ofMinutes(30));
      assertThat(first.changePoints(List.of(change(clock.instant(), 0.05))).await(20, TimeUnit.SECONDS)).isZero();
      clock.advance(Duration.ofMinutes(31));
      assertThat(first.changePoints(List.of(change(clock.instant(), -0.05))).await(20, TimeUnit.SECONDS)).isEqualTo(1);

      deliverUntil(() -> receiver.requests.size() == 2, first);
      List<String> statuses = store.deliveries(quiet.id(), 10).stream().map(Delivery::status).toList();
      assertThat(statuses).containsExactlyInAnyOrder("SENT", "SUPPRESSED", "SENT");
    }
  }

  @Test
  void changePoint_filters_severityLabelAndModelDecideWhoHears() throws Exception {
    try (Receiver receiver = new Receiver(200)) {
      target(receiver.url("/critical"), new Filter(List.of(), "CRITICAL", List.of(), List.of()), 0);
      target(receiver.url("/warning"), new Filter(List.of("CHANGE_POINT"), "WARNING", List.of(), List.of()), 0);
      target(receiver.url("/rack3"), new Filter(List.of(), "INFO", List.of("rack3"), List.of()), 0);
      target(receiver.url("/h100"), new Filter(List.of(), "INFO", List.of(), List.of("h100")), 0);
      target(receiver.url("/offline"), new Filter(List.of("AGENT_OFFLINE"), "INFO", List.of(), List.of()), 0);
      first = notifier(one);

      assertThat(first.changePoints(List.of(change(T, -0.05))).await(20, TimeUnit.SECONDS)).isEqualTo(2);

      deliverUntil(() -> receiver.requests.size() == 2, first);
      assertThat(receiver.requests.stream().map(Receiver.Request::path)).containsExactlyInAnyOrder("/warning", "/h100");
    }
  }

  @Test
  void agentSilentPastTheSetting_oneOfflineNotice_thenOneRecoveredWhenBack() throws Exception {
    try (Receiver receiver = new Receiver(200)) {
      target(receiver.url("/fleet"), all(), 0);
      first = notifier(one);
      clock.set(T.plus(Duration.ofMinutes(11)));
      deliverUntil(true, () -> receiver.requests.size() == 1, first);
      tickAsLeader(3);
      assertThat(receiver.requests).hasSize(1);
      assertThat(receiver.requests.getFirst().text()).contains("\"kind\":\"AGENT_OFFLINE\"")
          .contains("Agent a1 on a1.example offline for 11 min");

      agents.touchAgent("a1", T.plus(Duration.ofMinutes(12)));
      clock.set(T.plus(Duration.ofMinutes(12)).plusSeconds(5));
      deliverUntil(true, () -> receiver.requests.size() == 2, first);
      tickAsLeader(3);
      assertThat(receiver.requests).hasSize(2);
      assertThat(receiver.requests.get(1).text()).contains("\"kind\":\"DEVICE_RECOVERED\"").contains("is back");
    }
  }

  @Test
  void sweepWithAFailedRun_oneNoticeLinkingThatRun_aRunningSweepNone() throws Exception {
    try (Receiver receiver = new Receiver(200)) {
      target(receiver.url("/sweeps"), new Filter(List.of("SWEEP_FAILED"), "INFO", List.of(), List.of("H100")), 0);
      SweepStore sweeps = new SweepStore(db);
      var failed = sweeps.createSweep("stride", Map.of(), List.of(new RunTarget(gpu.id(), "a1", 9)), T);
      var running = sweeps.createSweep("stride", Map.of(), List.of(new RunTarget(gpu.id(), "a1", 9)), T);
      String failedRun = failed.runs().getFirst().runId();
      sweeps.endRun(failedRun, RunState.FAILED, "kernel crashed", T.plusSeconds(60));
      sweeps.markAccepted(running.runs().getFirst().runId(), T.plusSeconds(60));
      first = notifier(one);
      clock.set(T.plusSeconds(120));

      deliverUntil(true, () -> receiver.requests.size() == 1, first);
      tickAsLeader(3);

      assertThat(receiver.requests).hasSize(1);
      String body = receiver.requests.getFirst().text();
      assertThat(body).contains("\"kind\":\"SWEEP_FAILED\"").contains("Sweep " + failed.id())
          .contains(gpu.id() + " FAILED (kernel crashed)").doesNotContain(running.id())
          .contains("\"link\":\"http://dash.example/runs/" + failedRun + "\"");
    }
  }

  @Test
  void deviceOutsideItsCohort_oneNoticePerEpisode_recoveredOnlyWhenMeasuredWithinAgain() throws Exception {
    try (Receiver receiver = new Receiver(200)) {
      target(receiver.url("/cohort"), new Filter(List.of("COHORT_FLAG", "DEVICE_RECOVERED"), "INFO", List.of(),
          List.of()), 0);
      String series = "stride_copy_fp32 elements=1024;stride=4";
      CohortFlag flag = new CohortFlag(gpu.id(), gpu.name(), "13.0", series, "stride_copy_fp32", 1.8e12, 2.0e12,
          -0.10, 0.03, 7, true, "this H100 is 10% below its 7 peers on stride_copy_fp32 (elements=1024;stride=4),"
          + " at the same clocks");
      String measured = CohortState.measured(gpu.id(), series);
      cohort.set(new CohortState(List.of(flag), Set.of(measured)));
      first = notifier(one);

      deliverUntil(true, () -> receiver.requests.size() == 1, first);
      cohortScans(2);
      assertThat(receiver.requests).hasSize(1);
      assertThat(receiver.requests.getFirst().text()).contains("\"kind\":\"COHORT_FLAG\"")
          .contains("10% below its 7 peers").contains("1.800 TB/s against a peer median of 2.000 TB/s")
          .contains("\"link\":\"http://dash.example/compare?subject=device%3A%20n%2Fcuda%3A0&subject=model%3A%20"
              + "NVIDIA%20H100%2080GB%20HBM3\"");

      // Not measured any more: the flag is gone but nothing says the card is well.
      cohort.set(new CohortState(List.of(), Set.of()));
      cohortScans(2);
      assertThat(receiver.requests).hasSize(1);

      cohort.set(new CohortState(List.of(), Set.of(measured)));
      clock.advance(Notifier.COHORT_EVERY);
      deliverUntil(true, () -> receiver.requests.size() == 2, first);
      cohortScans(2);
      assertThat(receiver.requests).hasSize(2);
      assertThat(receiver.requests.get(1).text()).contains("\"kind\":\"DEVICE_RECOVERED\"")
          .contains("back within its cohort");
    }
  }

  /** Runs the leader's scan {@code times} times, the clock moved past the cohort interval each time. */
  private void cohortScans(int times) throws InterruptedException {
    for (int i = 0; i < times; i++) {
      clock.advance(Notifier.COHORT_EVERY);
      tickOn(first, true);
      Thread.sleep(700);
    }
  }

  /** Scans as the leader {@code times} times, the clock moved past the scan interval each time. */
  private void tickAsLeader(int times) throws InterruptedException {
    for (int i = 0; i < times; i++) {
      clock.advance(Notifier.SCAN_EVERY);
      tickOn(first, true);
      Thread.sleep(500);
    }
  }

  @Test
  void backoff_doublesFromTheFirstRetry_cappedAtAnHour() {
    assertThat(Notifier.backoff(30_000, 1)).isEqualTo(Duration.ofSeconds(30));
    assertThat(Notifier.backoff(30_000, 3)).isEqualTo(Duration.ofSeconds(120));
    assertThat(Notifier.backoff(30_000, 30)).isEqualTo(Duration.ofHours(1));
  }
}
