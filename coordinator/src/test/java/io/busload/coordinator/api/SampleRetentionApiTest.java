package io.busload.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.coordinator.Fixtures;
import io.busload.coordinator.Http;
import io.busload.coordinator.store.Database;
import io.busload.coordinator.store.SampleRetention;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.KernelResult;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Verdicts and reads over results whose raw samples the retention dropped, over real HTTP and a real PostgreSQL:
 * they answer, never fail, and say why a verdict cannot be reached.
 */
class SampleRetentionApiTest {
  @TempDir Path dir;
  @RegisterExtension final LocalCoordinator local = new LocalCoordinator();
  private Http http;
  private final DeviceInfo gpu = Fixtures.gpu("g0", 0);

  @BeforeEach
  void start() throws Exception {
    http = local.http();
    local.deliver(Fixtures.hello("a1", gpu));
  }

  /** Four stride cases of one sweep, measured at {@code at}, 10 samples each. */
  private List<KernelResult> sweep(String sweep, Instant at) {
    List<KernelResult> sent = new ArrayList<>();
    for (long stride : List.of(1L, 2L, 4L, 8L)) {
      KernelResult f = Fixtures.result(sweep, "run-" + sweep, "a1", gpu, stride, true, at.plusSeconds(stride));
      List<Double> samples = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        samples.add(f.medianSeconds() * (1 + 0.001 * (i - 5)));
      }
      KernelResult r = f.toBuilder().valid(true).mismatches(List.of()).minSeconds(samples.getFirst())
          .maxSeconds(samples.getLast()).relativeSpread(0.01).samples(samples).launchesPerSample(10)
          .warmupLaunches(5).build();
      local.deliver(r);
      sent.add(r);
    }
    return sent;
  }

  /** The retention as the leader runs it, from a connection pool of its own on the coordinator's database. */
  private SampleRetention.Dropped ageOut() {
    try (Database db = Database.open(local.settings().database(), dir.resolve("retention"))) {
      return new SampleRetention(db).ageOut(Instant.now(), local.settings().sampleRetention());
    }
  }

  @Test
  void verdicts_baselineSamplesAgedOut_unclearNamingTheRetentionNot500() {
    Instant old = Instant.now().minus(Duration.ofDays(200)).truncatedTo(ChronoUnit.DAYS);
    Instant recent = Instant.now().minus(Duration.ofDays(1)).truncatedTo(ChronoUnit.DAYS);
    sweep("sweep-old", old);
    sweep("sweep-new", recent);
    sweep("sweep-newer", recent.plusSeconds(3600));
    assertThat(ageOut().results()).isEqualTo(4);

    HttpResponse<String> answer = http.get("/api/verdicts?baseline=sweep-old&candidate=sweep-new");

    assertThat(answer.statusCode()).isEqualTo(200);
    JsonNode rows = Http.json(answer).get("rows");
    assertThat(rows).hasSize(4);
    for (JsonNode row : rows) {
      assertThat(row.get("verdict").asText()).isEqualTo("UNCLEAR");
      assertThat(row.get("reason").asText()).startsWith("the baseline has no raw samples any more")
          .contains("sample retention", "median, spread and clocks are kept");
      assertThat(row.get("baselineSamples").asInt()).isZero();
    }
    // Results measured since keep their samples and get a verdict on them.
    JsonNode kept = Http.json(http.get("/api/verdicts?baseline=sweep-new&candidate=sweep-newer")).get("rows");
    assertThat(kept).hasSize(4).allSatisfy(row -> {
      assertThat(row.get("verdict").asText()).isNotEqualTo("UNCLEAR");
      assertThat(row.get("baselineSamples").asInt()).isEqualTo(10);
    });
  }

  @Test
  void reads_resultsWhoseSamplesAgedOut_servedWithTheirSummaryAndNoSamples() {
    Instant old = Instant.now().minus(Duration.ofDays(200)).truncatedTo(ChronoUnit.DAYS);
    List<KernelResult> sent = sweep("sweep-old", old);
    ageOut();

    HttpResponse<String> results = http.get("/api/results?sweepId=sweep-old");
    HttpResponse<String> changePoints = http.get("/api/change-points?device=" + gpu.id());
    HttpResponse<String> csv = http.get("/api/results?sweepId=sweep-old", "text/csv");

    assertThat(results.statusCode()).isEqualTo(200);
    JsonNode served = Http.json(results);
    assertThat(served).hasSize(4).allSatisfy(r -> assertThat(r.get("samples")).isEmpty());
    assertThat(served).extracting(r -> r.get("medianSeconds").asDouble())
        .containsExactlyInAnyOrderElementsOf(sent.stream().map(KernelResult::medianSeconds).toList());
    assertThat(changePoints.statusCode()).isEqualTo(200);
    assertThat(csv.statusCode()).isEqualTo(200);
    assertThat(csv.body().lines().count()).isEqualTo(5);
  }
}
