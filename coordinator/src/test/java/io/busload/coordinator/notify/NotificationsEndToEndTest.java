package io.busload.coordinator.notify;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.GreenMailUtil;
import com.icegreen.greenmail.util.ServerSetup;
import io.busload.coordinator.Fixtures;
import io.busload.coordinator.Http;
import io.busload.coordinator.api.LocalCoordinator;
import io.busload.protocol.CacheResidency;
import io.busload.protocol.Clocks;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import io.busload.protocol.ResultStatus;
import io.busload.protocol.Sampling;
import io.busload.protocol.StopReason;
import io.busload.testsupport.Await;
import io.busload.testsupport.LogCapture;
import jakarta.mail.internet.MimeMessage;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Notices end to end: a real coordinator on a real PostgreSQL, results sent over its event bus, and real receivers
 * started here: an HTTP server standing in for Slack and a webhook, and GreenMail as the SMTP relay.
 */
class NotificationsEndToEndTest {
  private static final Instant T = Instant.parse("2026-11-01T00:00:00Z");
  private static final String DASHBOARD = "https://busload.lab.example:8443/";
  private static final String HMAC_KEY = "k3y-0f-the-receiver-9fz2LqW8";
  private static final String SLACK_TOKEN = "T0001/B0002/slacktoken7Yh3Qe";
  private static final String SMTP_PASSWORD = "smtp-pa55word-Zq81";

  @RegisterExtension final LocalCoordinator local = new LocalCoordinator();
  private Http http;
  private GreenMail mail;
  private DeviceInfo gpu;
  private final SplittableRandom random = new SplittableRandom(24);

  @BeforeEach
  void start() throws Exception {
    http = local.http();
    gpu = Fixtures.gpu("g", 0);
    local.deliver(Fixtures.hello("a1", gpu));
    mail = new GreenMail(new ServerSetup(0, "127.0.0.1", ServerSetup.PROTOCOL_SMTP));
    mail.setUser("busload", SMTP_PASSWORD);
    mail.start();
  }

  @AfterEach
  void stop() throws Exception {
    mail.stop();
  }

  private HttpResponse<String> admin(String path) {
    return http.write("GET", path, null, "Bearer " + Http.TOKEN);
  }

  /** A stride=4 result at about {@code bandwidth} B/s, with its clocks read (SM 1980 MHz, memory 2619 MHz). */
  private KernelResult result(double bandwidth, Instant at) {
    double level = bandwidth * (1 + 0.002 * (random.nextDouble() - 0.5));
    KernelResult r = Fixtures.result("s", "run-s", "a1", gpu, 4, true, at);
    List<Double> samples = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      samples.add(r.bytes() / (level * (1 + 0.002 * (random.nextDouble() - 0.5))));
    }
    double median = r.bytes() / level;
    KernelResult shaped = KernelResult.builder().schemaVersion(r.schemaVersion()).id(r.id()).runId(r.runId())
        .sweepId(r.sweepId()).agentId(r.agentId()).agentVersion(r.agentVersion()).fatbinHash(r.fatbinHash())
        .device(r.device()).suite(r.suite()).kernel(r.kernel()).params(r.params()).valid(true).mismatches(List.of())
        .medianSeconds(median).minSeconds(median).maxSeconds(median).relativeSpread(0.002).samples(samples)
        .launchesPerSample(10).warmupLaunches(5).bytesRead(r.bytesRead()).bytesWritten(r.bytesWritten())
        .bytes(r.bytes()).bandwidth(level).method("timed").measuredAt(r.measuredAt()).build();
    return shaped.withSampling(ResultStatus.MEASURED, new Sampling(10, 0, 0, StopReason.SPREAD_SETTLED,
        new Clocks(Clocks.Reading.READ, "NVML", 1980, 1980, 2619, 2619, 0L, 0, false),
        CacheResidency.of(r.bytes(), r.device().l2Bytes(), false)));
  }

  /** 20 results at 2.0 TB/s, then 10 at 1.9 TB/s: one level shift of -5% starting at result 20. */
  private List<KernelResult> step() {
    List<KernelResult> sent = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      KernelResult r = result(i < 20 ? 2.0e12 : 1.9e12, T.plusSeconds(3600L * i));
      sent.add(r);
      local.deliver(r);
    }
    return sent;
  }

  private String target(String json) {
    HttpResponse<String> created = http.post("/api/notifications/targets", json);
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    return Http.json(created).get("id").asText();
  }

  private void settings(String json) {
    HttpResponse<String> saved = http.put("/api/notifications/settings", json);
    assertThat(saved.statusCode()).as(saved.body()).isEqualTo(200);
  }

  private JsonNode deliveries() {
    return Http.json(admin("/api/notifications/deliveries"));
  }

  @Test
  void stepInHistory_slackWebhookAndMailTargets_exactlyOneMessageEachWithNumbersAndLink() throws Exception {
    try (Receiver receiver = new Receiver(200)) {
      settings("{\"dashboardUrl\":\"" + DASHBOARD + "\"}");
      target("{\"name\":\"lab slack\",\"kind\":\"slack\",\"secrets\":{\"url\":\"" + receiver.url("/services/"
          + SLACK_TOKEN) + "\"}}");
      target("{\"name\":\"ci hook\",\"kind\":\"webhook\",\"secrets\":{\"url\":\"" + receiver.url("/hook")
          + "\",\"key\":\"" + HMAC_KEY + "\"},\"filter\":{\"events\":[\"change-point\"],\"minSeverity\":\"warning\","
          + "\"models\":[\"h100\"]}}");
      target("{\"name\":\"lab mail\",\"kind\":\"email\",\"settings\":{\"host\":\"127.0.0.1\",\"port\":"
          + mail.getSmtp().getPort() + ",\"tls\":\"none\",\"from\":\"busload@lab.example\",\"to\":"
          + "\"gpu-team@lab.example\",\"user\":\"busload\"},\"secrets\":{\"password\":\"" + SMTP_PASSWORD + "\"}}");
      // A target for another model hears nothing of an H100.
      target("{\"name\":\"a100 only\",\"kind\":\"webhook\",\"secrets\":{\"url\":\"" + receiver.url("/a100")
          + "\",\"key\":\"" + HMAC_KEY + "\"},\"filter\":{\"models\":[\"A100\"]}}");

      List<KernelResult> sent = step();

      Await.until(() -> receiver.requests.size() >= 2 && mail.getReceivedMessages().length >= 1,
          Duration.ofSeconds(30), "a Slack post, a webhook post and a mail");
      Thread.sleep(3000);
      assertThat(receiver.to("/services/" + SLACK_TOKEN)).hasSize(1);
      assertThat(receiver.to("/hook")).hasSize(1);
      assertThat(receiver.to("/a100")).isEmpty();
      assertThat(mail.getReceivedMessages()).hasSize(1);

      String link = "https://busload.lab.example:8443/history?kernel=stride_copy_fp32&params=elements%3D1024%3Bstride%3D4";
      String slack = JsonCodec.MAPPER.readTree(receiver.to("/services/" + SLACK_TOKEN).getFirst().body())
          .get("text").asText();
      assertThat(slack).contains("Slower: stride_copy_fp32 -5.0% on g/cuda:0 (NVIDIA H100 80GB HBM3)")
          .containsPattern("fell from 2\\.00\\d TB/s to 1\\.90\\d TB/s \\(-[45]\\.\\d%\\)")
          .contains("SM clock 1980 MHz, memory clock 2619 MHz, driver 13.0")
          .contains("from the result measured at " + sent.get(20).measuredAt())
          .contains(link);

      Receiver.Request hook = receiver.to("/hook").getFirst();
      String timestamp = hook.header("X-Busload-Timestamp");
      assertThat(hook.header("X-Busload-Signature"))
          .isEqualTo("sha256=" + Sending.hmac(HMAC_KEY, timestamp, hook.body()));
      assertThat(Math.abs(Long.parseLong(timestamp) - Instant.now().getEpochSecond())).isLessThan(60);
      JsonNode body = JsonCodec.MAPPER.readTree(hook.body());
      assertThat(body.get("kind").asText()).isEqualTo("CHANGE_POINT");
      assertThat(body.get("severity").asText()).isEqualTo("WARNING");
      assertThat(body.get("link").asText()).isEqualTo(link);
      JsonNode details = body.get("details");
      assertThat(details.get("firstResultId").asText()).isEqualTo(sent.get(20).id().toString());
      assertThat(details.get("beforeBytesPerSecond").asDouble()).isBetween(1.99e12, 2.01e12);
      assertThat(details.get("afterBytesPerSecond").asDouble()).isBetween(1.89e12, 1.91e12);
      assertThat(details.get("changeFraction").asDouble()).isBetween(-0.06, -0.04);
      assertThat(details.get("driverVersion").asText()).isEqualTo("13.0");
      assertThat(details.get("clocks").get("smMinMHz").asInt()).isEqualTo(1980);
      assertThat(hook.header("X-Busload-Event")).isEqualTo(body.get("key").asText());

      MimeMessage message = mail.getReceivedMessages()[0];
      assertThat(message.getSubject()).startsWith("Slower: stride_copy_fp32 -5.0%");
      assertThat(message.getAllRecipients()[0].toString()).isEqualTo("gpu-team@lab.example");
      assertThat(GreenMailUtil.getBody(message).replace("=\r\n", "")).contains("to 1.90").contains("driver 13.0");

      JsonNode log = deliveries();
      assertThat(log).hasSize(3);
      for (JsonNode row : log) {
        assertThat(row.get("status").asText()).as(row.toString()).isEqualTo("SENT");
        assertThat(row.get("attempts").asInt()).isEqualTo(1);
      }
      assertThat(log.findValuesAsText("lastCode")).containsExactlyInAnyOrder("200", "200", "250");
    }
  }

  @Test
  void failingReceiver_answers500_retriedWithBackoffThenLoggedFailed() throws Exception {
    try (Receiver down = new Receiver(500)) {
      settings("{\"dashboardUrl\":\"" + DASHBOARD + "\",\"firstRetry\":\"PT0.2S\",\"attempts\":3}");
      String id = target("{\"name\":\"down\",\"kind\":\"slack\",\"secrets\":{\"url\":\"" + down.url("/down") + "\"}}");

      step();

      Await.until(() -> deliveries().size() == 1 && deliveries().get(0).get("status").asText().equals("FAILED"),
          Duration.ofSeconds(40), "the delivery given up after 3 attempts");
      JsonNode row = deliveries().get(0);
      assertThat(row.get("targetId").asText()).isEqualTo(id);
      assertThat(row.get("attempts").asInt()).isEqualTo(3);
      assertThat(row.get("lastCode").asInt()).isEqualTo(500);
      assertThat(row.get("lastError").asText()).isEqualTo("HTTP 500");
      assertThat(row.get("lastReply").asText()).isEqualTo("receiver down");
      Thread.sleep(1500);
      assertThat(down.requests).hasSize(3);
    }
  }

  @Test
  void secrets_targetsListedAndDeliveryFailing_neverInAnswersOrLogs() throws Exception {
    int closed = io.busload.testsupport.Ports.free();
    String url = "http://127.0.0.1:" + closed + "/hooks/" + SLACK_TOKEN + "?sig=" + SLACK_TOKEN;
    try (LogCapture notifier = LogCapture.of(Notifier.class)) {
      settings("{\"firstRetry\":\"PT0.2S\",\"attempts\":2}");
      String id = target("{\"name\":\"hook\",\"kind\":\"webhook\",\"secrets\":{\"url\":\"" + url + "\",\"key\":\""
          + HMAC_KEY + "\"}}");
      target("{\"name\":\"mail\",\"kind\":\"email\",\"settings\":{\"host\":\"127.0.0.1\",\"port\":" + closed
          + ",\"tls\":\"none\",\"from\":\"busload@lab.example\",\"to\":\"gpu-team@lab.example\",\"user\":\"busload\"},"
          + "\"secrets\":{\"password\":\"" + SMTP_PASSWORD + "\"}}");
      step();
      Await.until(() -> deliveries().size() == 2 && deliveries().findValuesAsText("status").stream()
          .allMatch("FAILED"::equals), Duration.ofSeconds(40), "both deliveries failed");

      String answers = admin("/api/notifications/targets").body() + admin("/api/notifications/targets/" + id).body()
          + admin("/api/notifications/deliveries").body();
      assertThat(answers).doesNotContain(SLACK_TOKEN).doesNotContain(HMAC_KEY).doesNotContain(SMTP_PASSWORD);
      JsonNode listed = Http.json(admin("/api/notifications/targets/" + id));
      assertThat(listed.get("secrets").get("url").asText()).isEqualTo("set");
      assertThat(listed.get("secrets").get("key").asText()).isEqualTo("set");
      assertThat(notifier.messages()).isNotEmpty();
      assertThat(String.join("\n", notifier.messages())).doesNotContain(SLACK_TOKEN).doesNotContain(HMAC_KEY)
          .doesNotContain(SMTP_PASSWORD);
    }
  }

  @Test
  void notificationReads_withoutToken_refused401() {
    target("{\"name\":\"lab slack\",\"kind\":\"slack\",\"secrets\":{\"url\":\"https://hooks.slack.example/x\"}}");
    assertThat(http.get("/api/notifications/targets").statusCode()).isEqualTo(401);
    assertThat(http.get("/api/notifications/deliveries").statusCode()).isEqualTo(401);
    assertThat(http.get("/api/notifications/settings").statusCode()).isEqualTo(401);
    assertThat(admin("/api/notifications/targets").statusCode()).isEqualTo(200);
  }

  @Test
  void badTarget_refusedNamingTheFieldAndNothingStored() {
    HttpResponse<String> kind = http.post("/api/notifications/targets", "{\"name\":\"x\",\"kind\":\"pager\"}");
    assertThat(kind.statusCode()).isEqualTo(400);
    assertThat(Http.json(kind).get("field").asText()).isEqualTo("kind");
    HttpResponse<String> plain = http.post("/api/notifications/targets", "{\"name\":\"x\",\"kind\":\"email\","
        + "\"settings\":{\"host\":\"smtp.lab.example\",\"tls\":\"none\",\"from\":\"a@lab.example\",\"to\":"
        + "\"b@lab.example\"}}");
    assertThat(plain.statusCode()).isEqualTo(400);
    assertThat(Http.json(plain).get("field").asText()).isEqualTo("settings.tls");
    HttpResponse<String> shortKey = http.post("/api/notifications/targets", "{\"name\":\"x\",\"kind\":\"webhook\","
        + "\"secrets\":{\"url\":\"https://ci.lab.example/hook\",\"key\":\"short\"}}");
    assertThat(shortKey.statusCode()).isEqualTo(400);
    assertThat(Http.json(shortKey).get("field").asText()).isEqualTo("secrets.key");
    assertThat(shortKey.body()).doesNotContain("short\"");
    HttpResponse<String> badUrl = http.post("/api/notifications/targets", "{\"name\":\"x\",\"kind\":\"slack\","
        + "\"secrets\":{\"url\":\"ftp://files.lab.example/" + SLACK_TOKEN + "\"}}");
    assertThat(badUrl.statusCode()).isEqualTo(400);
    assertThat(badUrl.body()).doesNotContain(SLACK_TOKEN);
    HttpResponse<String> nul = http.post("/api/notifications/targets", "{\"name\":\"x\\u0000\",\"kind\":\"slack\","
        + "\"secrets\":{\"url\":\"https://hooks.slack.example/x\"}}");
    assertThat(nul.statusCode()).isEqualTo(400);
    assertThat(Http.json(nul).get("field").asText()).isEqualTo("name");
    assertThat(Http.json(admin("/api/notifications/targets"))).isEmpty();
  }

  @Test
  void deleteTarget_thereThenGone_204Then404NamingIt() {
    String id = target("{\"name\":\"hook\",\"kind\":\"webhook\",\"secrets\":{\"url\":"
        + "\"https://ci.lab.example/hook\",\"key\":\"" + HMAC_KEY + "\"}}");

    assertThat(http.delete("/api/notifications/targets/" + id).statusCode()).isEqualTo(204);
    HttpResponse<String> again = http.delete("/api/notifications/targets/" + id);

    assertThat(again.statusCode()).isEqualTo(404);
    assertThat(Http.json(again).get("detail").asText()).isEqualTo("unknown notification target '" + id + "'");
    assertThat(Http.json(admin("/api/notifications/targets"))).isEmpty();
  }

  @Test
  void mailTarget_relayWithoutStartTls_refusedBeforePasswordOrMessage() throws Exception {
    settings("{\"firstRetry\":\"PT0.2S\",\"attempts\":1}");
    // GreenMail offers no STARTTLS: a relay (or someone in between) that strips it gets neither password nor mail.
    target("{\"name\":\"mail\",\"kind\":\"email\",\"settings\":{\"host\":\"localhost\",\"port\":"
        + mail.getSmtp().getPort() + ",\"from\":\"busload@lab.example\",\"to\":\"gpu-team@lab.example\","
        + "\"user\":\"busload\"},\"secrets\":{\"password\":\"" + SMTP_PASSWORD + "\"}}");
    step();
    Await.until(() -> deliveries().size() == 1 && deliveries().get(0).get("status").asText().equals("FAILED"),
        Duration.ofSeconds(40), "the delivery refused for want of STARTTLS");
    assertThat(deliveries().get(0).get("lastError").asText()).contains("STARTTLS");
    assertThat(mail.getReceivedMessages()).isEmpty();
  }
}
