package io.busload.coordinator.notify;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.coordinator.Fixtures;
import io.busload.coordinator.Http;
import io.busload.coordinator.api.LocalCoordinator;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.Health;
import io.busload.protocol.HealthCounters;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import io.busload.testsupport.Await;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Health verdicts end to end: a real coordinator on a real PostgreSQL judges results that carry NVML health as they
 * are stored, serves the verdict over REST, and tells a real HTTP receiver (a webhook target) of each change once.
 */
class HealthNotificationsTest {
  private static final HealthCounters CLEAN = new HealthCounters(0L, 0L, 0L, 0L, null, null, null, 0L, 0L, false,
      false, 0L);
  private static final HealthCounters UNCORRECTED = new HealthCounters(0L, 1L, 0L, 1L, null, null, null, 0L, 0L,
      false, false, 0L);
  private static final String KEY = "k3y-0f-the-receiver-9fz2LqW8";

  @RegisterExtension final LocalCoordinator local = new LocalCoordinator();
  private Http http;
  private DeviceInfo gpu;

  @BeforeEach
  void start() throws Exception {
    http = local.http();
    gpu = Fixtures.gpu("g", 0);
    local.deliver(Fixtures.hello("a1", gpu));
  }

  /** One result of sweep {@code sweep} whose health went from clean at the run's start to {@code after}. */
  private KernelResult run(String sweep, HealthCounters after) {
    KernelResult r = Fixtures.result(sweep, "run-" + sweep, "a1", gpu, 4, true, Instant.now())
        .withHealth(new Health(CLEAN, after, List.of(), "NVML, driver 580.82.07"));
    local.deliver(r);
    return r;
  }

  /** Waits until the device's stored verdict was judged on {@code r}, and returns it. */
  private JsonNode judged(KernelResult r) throws InterruptedException {
    String path = "/api/devices/health?device=" + java.net.URLEncoder.encode(gpu.id(),
        java.nio.charset.StandardCharsets.UTF_8);
    Await.until(() -> {
      HttpResponse<String> answer = http.get(path);
      return answer.statusCode() == 200 && Http.json(answer).get("resultId").asText().equals(r.id().toString());
    }, Duration.ofSeconds(20), "the verdict judged on result " + r.id());
    return Http.json(http.get(path));
  }

  @Test
  void verdictChanges_healthyFailedFailedHealthy_oneNoticePerChangeToARealReceiver() throws Exception {
    try (Receiver receiver = new Receiver(200)) {
      HttpResponse<String> created = http.post("/api/notifications/targets", "{\"name\":\"ops hook\",\"kind\":"
          + "\"webhook\",\"secrets\":{\"url\":\"" + receiver.url("/hook") + "\",\"key\":\"" + KEY + "\"},"
          + "\"filter\":{\"events\":[\"device-health-changed\",\"device-health-recovered\"]}}");
      assertThat(created.statusCode()).as(created.body()).isEqualTo(201);

      JsonNode first = judged(run("s1", CLEAN));
      assertThat(first.get("state").asText()).isEqualTo("HEALTHY");

      KernelResult failing = run("s2", UNCORRECTED);
      JsonNode failed = judged(failing);
      assertThat(failed.get("state").asText()).isEqualTo("FAILED");
      assertThat(failed.get("reasons").get(0).get("kind").asText()).isEqualTo("ECC_UNCORRECTED");
      Await.until(() -> receiver.to("/hook").size() >= 1, Duration.ofSeconds(30), "the FAILED notice");

      // Judged FAILED again: the same state, no second notice.
      judged(run("s3", UNCORRECTED));
      // Back to HEALTHY (the volatile count restarts at 0 once the driver reloads).
      judged(run("s4", CLEAN));
      Await.until(() -> receiver.to("/hook").size() >= 2, Duration.ofSeconds(30), "the recovery notice");
      Thread.sleep(3000);

      List<Receiver.Request> hooks = receiver.to("/hook");
      assertThat(hooks).hasSize(2);
      JsonNode down = JsonCodec.MAPPER.readTree(hooks.get(0).body());
      assertThat(down.get("kind").asText()).isEqualTo("DEVICE_HEALTH_CHANGED");
      assertThat(down.get("severity").asText()).isEqualTo("CRITICAL");
      assertThat(down.get("details").get("state").asText()).isEqualTo("FAILED");
      assertThat(down.get("details").get("before").asText()).isEqualTo("HEALTHY");
      assertThat(down.get("details").get("resultId").asText()).isEqualTo(failing.id().toString());
      assertThat(down.get("text").asText()).contains("1 uncorrected ECC error(s) since the driver loaded");
      JsonNode up = JsonCodec.MAPPER.readTree(hooks.get(1).body());
      assertThat(up.get("kind").asText()).isEqualTo("DEVICE_HEALTH_RECOVERED");
      assertThat(up.get("details").get("before").asText()).isEqualTo("FAILED");

      JsonNode devices = Http.json(http.get("/api/devices"));
      assertThat(devices.findValues("health").stream().filter(h -> !h.isNull())
          .map(h -> h.get("state").asText()).toList()).containsExactly("HEALTHY");
    }
  }
}
