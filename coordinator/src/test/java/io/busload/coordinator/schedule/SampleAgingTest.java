package io.busload.coordinator.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.coordinator.Fixtures;
import io.busload.coordinator.TestDatabase;
import io.busload.coordinator.store.Database;
import io.busload.coordinator.store.ResultStore;
import io.busload.coordinator.store.SampleRetention;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.KernelResult;
import io.busload.testsupport.LogCapture;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The retention job as the leader runs it, on a real PostgreSQL: it drops, logs and counts; a standby does not. */
class SampleAgingTest {
  private static final Instant NOW = Instant.parse("2026-11-27T12:00:00Z");
  private static final DeviceInfo GPU = Fixtures.gpu("h1", 0);

  private final Database db = Database.open(TestDatabase.fresh(), Path.of("target", "no-data-dir"));
  private final ResultStore store = new ResultStore(db);
  private final PrometheusMeterRegistry metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final AtomicBoolean leading = new AtomicBoolean();

  @AfterEach
  void close() {
    db.close();
  }

  private SampleAging aging(Duration keep) {
    return new SampleAging(new SampleRetention(db), keep, Clock.fixed(NOW, ZoneOffset.UTC), leading::get, metrics);
  }

  private KernelResult stored(Instant at) {
    KernelResult r = Fixtures.result("s1", "r1", "a1", GPU, 4, true, at);
    store.insertResult(r, NOW);
    return r;
  }

  @Test
  void run_onTheLeader_dropsOldSamplesLogsThemAndCountsThemInMetrics() {
    KernelResult old = stored(Instant.parse("2026-03-03T03:00:00Z"));
    stored(Instant.parse("2026-04-04T03:00:00Z"));
    KernelResult recent = stored(Instant.parse("2026-11-20T03:00:00Z"));
    leading.set(true);

    SampleRetention.Dropped dropped;
    try (LogCapture log = LogCapture.of(SampleAging.class)) {
      dropped = aging(Duration.ofDays(90)).run();
      assertThat(log.messages()).singleElement().asString()
          .contains("dropped the raw samples of [2026-03, 2026-04]", "2 results", "summaries kept");
    }

    assertThat(dropped.results()).isEqualTo(2);
    assertThat(store.samples(old.id())).isEmpty();
    assertThat(store.samples(recent.id())).isEqualTo(recent.samples());
    String scraped = metrics.scrape();
    assertThat(scraped).contains("busload_sample_months_dropped_total 2.0",
        "busload_sample_results_aged_out_total 2.0", "busload_sample_retention_failures_total 0.0");
    assertThat(metrics.get("busload_sample_bytes_aged_out").counter().count()).isEqualTo(dropped.bytes()).isPositive();
  }

  @Test
  void run_onAStandby_dropsNothing() {
    KernelResult old = stored(Instant.parse("2026-03-03T03:00:00Z"));
    leading.set(false);

    assertThat(aging(Duration.ofDays(90)).run()).isNull();

    assertThat(store.samples(old.id())).isEqualTo(old.samples());
    assertThat(metrics.scrape()).contains("busload_sample_months_dropped_total 0.0");
  }

  @Test
  void run_retentionForever_dropsNothingEvenOnTheLeader() {
    KernelResult old = stored(Instant.parse("2020-03-03T03:00:00Z"));
    leading.set(true);

    assertThat(aging(null).run()).isNull();

    assertThat(store.samples(old.id())).isEqualTo(old.samples());
  }
}
