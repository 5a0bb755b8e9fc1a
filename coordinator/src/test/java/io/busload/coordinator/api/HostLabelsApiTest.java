package io.busload.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.coordinator.Fixtures;
import io.busload.coordinator.Http;
import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.AgentHello;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.Protocol;
import io.busload.testsupport.SettableClock;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Schedule targets by host label, over real HTTP and a real PostgreSQL: labels arrive in agents' hellos, are stored
 * with the agent, shown and previewed on {@code GET /api/devices}, and select the devices a schedule fires on.
 */
class HostLabelsApiTest {
  private static final DeviceInfo EAST_0 = Fixtures.gpu("east-1", 0);
  private static final DeviceInfo EAST_1 = Fixtures.gpu("east-1", 1);
  private static final DeviceInfo WEST = Fixtures.cpu("west-1");
  private static final DeviceInfo OLD = Fixtures.cpu("old-1");

  private final SettableClock clock = new SettableClock(Instant.parse("2026-11-01T09:59:30Z"));
  @RegisterExtension final LocalCoordinator local = new LocalCoordinator(clock);
  private Http http;

  @BeforeEach
  void start() {
    http = local.http();
    hello("east-1", List.of("lab-east", "rack=a"), EAST_0, EAST_1);
    hello("west-1", List.of("lab-west", "rack=a"), WEST);
    // An agent from before labels: its hello has none.
    assertThat(send(Fixtures.hello("old-1", OLD)).ok()).isTrue();
  }

  @Test
  void devices_eachWithItsHostsLabels_previewSelectsWhatATargetWouldRunOn() {
    JsonNode all = Http.json(http.get("/api/devices"));
    assertThat(all).hasSize(4);
    for (JsonNode device : all) {
      List<String> labels = new ArrayList<>();
      device.get("labels").forEach(l -> labels.add(l.asText()));
      assertThat(labels).as(device.get("id").asText()).isEqualTo(switch (device.get("agentId").asText()) {
        case "east-1" -> List.of("lab-east", "rack=a");
        case "west-1" -> List.of("lab-west", "rack=a");
        default -> List.of();
      });
    }

    assertThat(preview("label", "lab-east")).containsExactly(EAST_0.id(), EAST_1.id());
    assertThat(preview("label", "rack=a")).containsExactly(EAST_0.id(), EAST_1.id(), WEST.id());
    assertThat(preview("LABEL", "lab-west")).containsExactly(WEST.id());
    assertThat(preview("label", "lab")).as("whole labels only").isEmpty();
    assertThat(preview("host", "west-1.example")).containsExactly(WEST.id());
    assertThat(preview("all", null)).hasSize(4);
  }

  @Test
  void devicesPreview_badTarget_400NamingTheParameter() {
    HttpResponse<String> noValue = http.get("/api/devices?target=label");
    HttpResponse<String> unknown = http.get("/api/devices?target=rack&value=a");
    HttpResponse<String> tooLong = http.get("/api/devices?target=label&value=" + "x".repeat(256));

    assertThat(noValue.statusCode()).isEqualTo(400);
    assertThat(Http.json(noValue).get("field").asText()).isEqualTo("value");
    assertThat(unknown.statusCode()).isEqualTo(400);
    assertThat(Http.json(unknown).get("field").asText()).isEqualTo("target");
    assertThat(Http.json(unknown).get("detail").asText()).contains("label");
    assertThat(tooLong.statusCode()).isEqualTo(400);
  }

  @Test
  void hello_newLabels_replaceTheOldOnes() {
    hello("east-1", List.of("lab-north"), EAST_0, EAST_1);

    assertThat(preview("label", "lab-east")).isEmpty();
    assertThat(preview("label", "rack=a")).containsExactly(WEST.id());
    assertThat(preview("label", "lab-north")).containsExactly(EAST_0.id(), EAST_1.id());
  }

  @Test
  void hello_labelsTheCoordinatorCannotKeep_refusedNamingTheLabel() {
    Ack blank = send(new AgentHello(Protocol.SCHEMA_VERSION, "bad-1", "bad-1.example", "0.1.0", "abc", List.of(OLD),
        Instant.now(), List.of("ok", " ")));
    Ack tooMany = send(new AgentHello(Protocol.SCHEMA_VERSION, "bad-2", "bad-2.example", "0.1.0", "abc", List.of(OLD),
        Instant.now(), java.util.stream.IntStream.range(0, 33).mapToObj(i -> "l" + i).toList()));

    assertThat(blank.ok()).isFalse();
    assertThat(blank.reason()).isEqualTo("labels[1]: must not be blank");
    assertThat(tooMany.ok()).isFalse();
    assertThat(tooMany.reason()).isEqualTo("labels: at most 32, got 33");
  }

  @Test
  void schedule_byLabel_firesOnTheLabelledHostsDevicesOnly() throws Exception {
    HttpResponse<String> nowhere = http.post("/api/schedules", schedule("lab-south"));
    assertThat(nowhere.statusCode()).as(nowhere.body()).isEqualTo(400);
    assertThat(Http.json(nowhere).get("detail").asText()).contains("label 'lab-south'");

    HttpResponse<String> created = http.post("/api/schedules", schedule("lab-east"));
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    String id = Http.json(created).get("id").asText();
    assertThat(Http.json(created).get("target").get("kind").asText()).isEqualToIgnoringCase("label");

    clock.set(Instant.parse("2026-11-01T10:00:05Z"));
    JsonNode sweep = null;
    for (int i = 0; i < 100 && sweep == null; i++) {
      for (JsonNode s : Http.json(http.get("/api/sweeps"))) {
        sweep = s;
      }
      Thread.sleep(100);
    }
    assertThat(sweep).as("a sweep fired by schedule " + id).isNotNull();
    List<String> devices = new ArrayList<>();
    sweep.get("runs").forEach(r -> devices.add(r.get("deviceId").asText()));
    assertThat(devices).containsExactlyInAnyOrder(EAST_0.id(), EAST_1.id());
  }

  private static String schedule(String label) {
    return "{\"cron\":\"0 * * * *\",\"suite\":\"stride\",\"target\":{\"kind\":\"label\",\"value\":\"" + label + "\"}}";
  }

  private List<String> preview(String kind, String value) {
    HttpResponse<String> response = http.get("/api/devices?target=" + kind
        + (value == null ? "" : "&value=" + URLEncoder.encode(value, StandardCharsets.UTF_8)));
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    List<String> ids = new ArrayList<>();
    Http.json(response).forEach(d -> ids.add(d.get("id").asText()));
    return ids;
  }

  private void hello(String agentId, List<String> labels, DeviceInfo... devices) {
    Ack ack = send(new AgentHello(Protocol.SCHEMA_VERSION, agentId, agentId + ".example", "0.1.0", "fatbin-abc",
        List.of(devices), Instant.now(), labels));
    assertThat(ack.ok()).as(ack.reason()).isTrue();
  }

  private Ack send(AgentHello hello) {
    return local.request(Addresses.AGENT_HELLO, hello);
  }
}
