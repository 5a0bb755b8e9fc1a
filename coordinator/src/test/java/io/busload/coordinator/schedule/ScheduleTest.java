package io.busload.coordinator.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.coordinator.ClusterCoordinator;
import io.busload.coordinator.Coordinator;
import io.busload.coordinator.CoordinatorSettings;
import io.busload.coordinator.Fixtures;
import io.busload.coordinator.Http;
import io.busload.coordinator.TestDatabase;
import io.busload.coordinator.api.RestApiTestSettings;
import io.busload.coordinator.store.Database;
import io.busload.coordinator.store.DatabaseSettings;
import io.busload.coordinator.store.RunTarget;
import io.busload.coordinator.store.Schedule;
import io.busload.coordinator.store.ScheduleStore;
import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.DeviceInfo;
import io.busload.testsupport.LoopbackCluster;
import io.busload.testsupport.SettableClock;
import io.vertx.core.Vertx;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ScheduleStore firing for real: a controlled clock, a real PostgreSQL, one or two real coordinators. */
class ScheduleTest {
  private static final DeviceInfo GPU = Fixtures.gpu("sc-host", 0);
  private static final String EVERY_HOUR = Fixtures.hourlySchedule(GPU);

  @TempDir Path dir;

  @Test
  void fire_twoClaimsForTheSameTime_makesOneSweep() throws Exception {
    DatabaseSettings database = TestDatabase.fresh();
    Vertx vertx = Vertx.vertx();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (Database db = vertx.executeBlocking(() -> Database.open(database, dir)).await(30, TimeUnit.SECONDS)) {
      ScheduleStore schedules = new ScheduleStore(db);
      Instant due = Instant.parse("2026-11-01T10:00:00Z");
      Schedule schedule = new Schedule("s1", "x", "0 * * * *", "UTC", "stride", Map.of(),
          new Schedule.Target(Schedule.Target.Kind.ALL, null), false, due, due.minusSeconds(3600), due.minusSeconds(3600));
      ScheduleStore.FirePlan plan = onGpu(now -> due.plusSeconds(3600));
      pool.submit(() -> {
        schedules.insert(schedule);
        return null;
      }).get();
      Callable<Optional<ScheduleStore.Fired>> claim = () -> schedules.fire("s1", due.plusSeconds(1), Scheduler.LATE_AFTER, plan);

      Future<Optional<ScheduleStore.Fired>> a = pool.submit(claim);
      Future<Optional<ScheduleStore.Fired>> b = pool.submit(claim);

      assertThat(List.of(a.get(), b.get()).stream().filter(Optional::isPresent).count()).isEqualTo(1);
      assertThat(count(database, "SELECT COUNT(*) FROM sweeps")).isEqualTo(1);
      assertThat(count(database, "SELECT COUNT(*) FROM schedule_fires")).isEqualTo(1);
    } finally {
      pool.shutdownNow();
      vertx.close().await(20, TimeUnit.SECONDS);
    }
  }

  @Test
  void fire_previousSweepStillRunning_skippedWithWhyUnlessOverlapAllowed() throws Exception {
    DatabaseSettings database = TestDatabase.fresh();
    Vertx vertx = Vertx.vertx();
    try (Database db = vertx.executeBlocking(() -> Database.open(database, dir)).await(30, TimeUnit.SECONDS)) {
      ScheduleStore schedules = new ScheduleStore(db);
      Instant due = Instant.parse("2026-11-01T10:00:00Z");
      ScheduleStore.FirePlan plan = onGpu(now -> now.truncatedTo(java.time.temporal.ChronoUnit.HOURS).plusSeconds(3600));
      for (boolean overlap : List.of(false, true)) {
        String id = overlap ? "overlapping" : "one-at-a-time";
        vertx.executeBlocking(() -> {
          schedules.insert(new Schedule(id, id, "0 * * * *", "UTC", "stride", Map.of(),
              new Schedule.Target(Schedule.Target.Kind.ALL, null), false, due, due.minusSeconds(3600),
              due.minusSeconds(3600), overlap));
          return null;
        }).await(10, TimeUnit.SECONDS);
      }

      for (String id : List.of("one-at-a-time", "overlapping")) {
        Optional<ScheduleStore.Fired> first = vertx.executeBlocking(() -> schedules.fire(id, due.plusSeconds(1),
            Scheduler.LATE_AFTER, plan)).await(10, TimeUnit.SECONDS);
        assertThat(first.orElseThrow().sweep()).isNotNull();
      }
      // An hour on, each schedule's first sweep has not run (its run is still queued).
      Instant next = due.plusSeconds(3601);
      ScheduleStore.Fired skipped = vertx.executeBlocking(() -> schedules.fire("one-at-a-time", next, Scheduler.LATE_AFTER,
          plan)).await(10, TimeUnit.SECONDS).orElseThrow();
      ScheduleStore.Fired overlapping = vertx.executeBlocking(() -> schedules.fire("overlapping", next,
          Scheduler.LATE_AFTER, plan)).await(10, TimeUnit.SECONDS).orElseThrow();

      assertThat(skipped.sweep()).isNull();
      assertThat(skipped.fire().message()).startsWith("skipped: sweep ").contains("is still running (1 run(s) unfinished)");
      assertThat(overlapping.sweep()).isNotNull();
      assertThat(count(database, "SELECT COUNT(*) FROM sweeps WHERE schedule_id = 'one-at-a-time'")).isEqualTo(1);
      assertThat(count(database, "SELECT COUNT(*) FROM sweeps WHERE schedule_id = 'overlapping'")).isEqualTo(2);
      assertThat(count(database, "SELECT COUNT(*) FROM schedule_fires WHERE schedule_id = 'one-at-a-time'"
          + " AND message LIKE 'skipped:%'")).isEqualTo(1);
      Schedule moved = vertx.executeBlocking(() -> schedules.find("one-at-a-time")).await(10, TimeUnit.SECONDS)
          .orElseThrow();
      assertThat(moved.nextFireAt()).as("the next fire is still planned").isEqualTo(Instant.parse("2026-11-01T12:00:00Z"));
    } finally {
      vertx.close().await(20, TimeUnit.SECONDS);
    }
  }

  @Test
  void schedule_twoCoordinatorsInOneCluster_firesEachTimeExactlyOnce() throws Exception {
    DatabaseSettings database = TestDatabase.fresh();
    SettableClock clock = new SettableClock(Instant.parse("2026-11-01T09:59:30Z"));
    List<Coordinator> coordinators = new ArrayList<>();
    try (LoopbackCluster cluster = new LoopbackCluster("busload-test")) {
      for (int i = 0; i < 2; i++) {
        coordinators.add(ClusterCoordinator.start(cluster,
            ClusterCoordinator.settings(cluster, dir.resolve("c" + i), database), clock));
      }
      Vertx first = coordinators.getFirst().vertx();
      Ack hello = first.eventBus().<Ack>request(Addresses.AGENT_HELLO, Fixtures.hello("sc-agent", GPU))
          .await(10, TimeUnit.SECONDS).body();
      assertThat(hello.ok()).isTrue();
      Http http = new Http(coordinators.get(1).httpPort());
      // Fires of the same time, once each, however long each sweep runs.
      HttpResponse<String> created = http.post("/api/schedules", EVERY_HOUR.replace("}}", "},\"allowOverlap\":true}"));
      assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
      String id = Http.json(created).get("id").asText();

      clock.set(Instant.parse("2026-11-01T10:00:05Z"));
      waitFor(() -> count(database, "SELECT COUNT(*) FROM schedule_fires") == 1);
      clock.set(Instant.parse("2026-11-01T11:00:02Z"));
      waitFor(() -> count(database, "SELECT COUNT(*) FROM schedule_fires") == 2);
      Thread.sleep(3000); // several more ticks of both coordinators at the same time

      assertThat(count(database, "SELECT COUNT(*) FROM sweeps WHERE schedule_id = '" + id + "'")).isEqualTo(2);
      assertThat(count(database, "SELECT COUNT(*) FROM runs")).isEqualTo(2);
      JsonNode schedule = Http.json(http.get("/api/schedules/" + id));
      assertThat(schedule.get("fires")).hasSize(2);
      assertThat(schedule.get("fires").get(0).get("late").asBoolean()).isFalse();
      assertThat(schedule.get("nextFireAt").asText()).isEqualTo("2026-11-01T12:00:00Z");
    }
  }

  @Test
  void schedule_coordinatorDownOverThreeFireTimes_firesOnceMarkedLate() throws Exception {
    SettableClock clock = new SettableClock(Instant.parse("2026-11-01T09:30:00Z"));
    CoordinatorSettings settings = RestApiTestSettings.of(dir);
    Vertx vertx = Vertx.vertx();
    try {
      Coordinator coordinator = Coordinator.deploy(vertx, settings, clock).await(30, TimeUnit.SECONDS);
      vertx.eventBus().<Ack>request(Addresses.AGENT_HELLO, Fixtures.hello("sc-agent", GPU)).await(10, TimeUnit.SECONDS);
      Http http = new Http(coordinator.httpPort());
      String id = Http.json(http.post("/api/schedules", EVERY_HOUR)).get("id").asText();
      coordinator.stop().await(20, TimeUnit.SECONDS);

      clock.set(Instant.parse("2026-11-01T12:40:00Z")); // 10:00, 11:00 and 12:00 were missed
      coordinator = Coordinator.deploy(vertx, settings, clock).await(30, TimeUnit.SECONDS);
      http = new Http(coordinator.httpPort());
      DatabaseSettings database = settings.database();
      waitFor(() -> count(database, "SELECT COUNT(*) FROM schedule_fires") == 1);
      Thread.sleep(2000);

      JsonNode schedule = Http.json(http.get("/api/schedules/" + id));
      assertThat(schedule.get("fires")).hasSize(1);
      JsonNode fire = schedule.get("fires").get(0);
      assertThat(fire.get("fireTime").asText()).isEqualTo("2026-11-01T10:00:00Z");
      assertThat(fire.get("late").asBoolean()).isTrue();
      assertThat(schedule.get("nextFireAt").asText()).isEqualTo("2026-11-01T13:00:00Z");
      JsonNode sweep = Http.json(http.get("/api/sweeps/" + fire.get("sweepId").asText()));
      assertThat(sweep.get("runs")).hasSize(1);
      assertThat(sweep.get("runs").get(0).get("deviceId").asText()).isEqualTo(GPU.id());
      assertThat(count(database, "SELECT COUNT(*) FROM sweeps WHERE late")).isEqualTo(1);
      coordinator.stop().await(20, TimeUnit.SECONDS);
    } finally {
      vertx.close().await(20, TimeUnit.SECONDS);
    }
  }

  private static long count(DatabaseSettings database, String sql) throws Exception {
    try (Connection c = DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
        ResultSet rs = c.createStatement().executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static void waitFor(Callable<Boolean> condition) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (!condition.call()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not met within 20 s");
      }
      Thread.sleep(100);
    }
  }

  /** Fires every schedule on {@link #GPU} alone; {@code nextAfter} says when it is due next. */
  private static ScheduleStore.FirePlan onGpu(java.util.function.UnaryOperator<Instant> nextAfter) {
    return new ScheduleStore.FirePlan() {
      @Override
      public List<RunTarget> targets(Schedule s) {
        return List.of(new RunTarget(GPU.id(), "sc-agent", 2));
      }

      @Override
      public Instant nextAfter(Schedule s, Instant now) {
        return nextAfter.apply(now);
      }
    };
  }
}
