package io.busload.coordinator.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.busload.coordinator.AgentDouble;
import io.busload.coordinator.ClusterCoordinator;
import io.busload.coordinator.Coordinator;
import io.busload.coordinator.Fixtures;
import io.busload.coordinator.Http;
import io.busload.coordinator.RawCodec;
import io.busload.coordinator.TestDatabase;
import io.busload.coordinator.store.DatabaseSettings;
import io.busload.coordinator.store.ResultJson;
import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import io.busload.protocol.cluster.ClusterSettings;
import io.busload.testsupport.LoopbackCluster;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Through a real cluster: the coordinator stores a result's JSON as the agent sent it when it can, and its
 * own encoding of the record when the bytes hold more than the record (a newer agent's fields) or are not valid
 * UTF-8; either way the result is acked, and the REST API serves JSON.
 */
class IntakeJsonTest {
  private static final DeviceInfo GPU = Fixtures.gpu("json-host", 0);
  private static final String CODEC = "busload.KernelResult";

  @TempDir Path dir;
  private final DatabaseSettings database = TestDatabase.fresh();
  @AutoClose private final LoopbackCluster cluster = new LoopbackCluster("busload-json");
  private Coordinator coordinator;
  private Vertx agentVertx;

  @BeforeEach
  void start() throws Exception {
    coordinator = ClusterCoordinator.start(cluster, ClusterCoordinator.settings(cluster, dir, database));
    agentVertx = cluster.join(ClusterSettings.AGENT);
    // This member writes result frames byte for byte, under the protocol codec's name.
    agentVertx.eventBus().unregisterDefaultCodec(KernelResult.class);
    agentVertx.eventBus().registerCodec(new RawCodec(CODEC));
    cluster.onClose(new AgentDouble(agentVertx, Fixtures.hello("json-agent", GPU)));
  }

  @Test
  void results_asSentOrWithMore_storedAsTheRecordWithoutItsSamplesAndServedWithThem() throws Exception {
    KernelResult plain = result(1);
    KernelResult pretty = result(2);
    KernelResult newer = result(4);
    KernelResult overlong = result(8);
    byte[] plainJson = JsonCodec.toJson(plain);
    byte[] prettyJson = JsonCodec.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsBytes(pretty);
    ObjectNode withMore = (ObjectNode) JsonCodec.MAPPER.readTree(JsonCodec.toJson(newer));
    withMore.put("fromANewerAgent", "y".repeat(10_000));
    byte[] overlongJson = withOverlongA(JsonCodec.toJson(overlong));

    for (byte[] json : List.of(plainJson, prettyJson, JsonCodec.MAPPER.writeValueAsBytes(withMore), overlongJson)) {
      Ack ack = agentVertx.eventBus().<Ack>request(Addresses.RESULTS, Buffer.buffer().appendInt(json.length)
          .appendBytes(json), new DeliveryOptions().setCodecName(CODEC)).await(30, TimeUnit.SECONDS).body();
      assertThat(ack.ok()).as(ack.reason()).isTrue();
    }

    // result_json holds the record without its samples (kept apart, in result_samples, until they age out).
    assertThat(storedJson(plain)).isEqualTo(withoutSamples(plain));
    assertThat(storedJson(pretty)).isEqualTo(withoutSamples(pretty));
    assertThat(storedJson(newer)).doesNotContain("fromANewerAgent")
        .isEqualTo(withoutSamples(JsonCodec.MAPPER.treeToValue(withMore, KernelResult.class)));
    assertThat(storedJson(overlong)).contains("\"method\":\"A").doesNotContain("\uFFFD");
    JsonNode served = Http.json(new Http(coordinator.httpPort()).get("/api/results?device=" + GPU.id()));
    assertThat(served).hasSize(4);
    java.util.Map<String, List<Double>> sent = new java.util.HashMap<>();
    for (KernelResult r : List.of(plain, pretty, newer, overlong)) {
      sent.put(r.id().toString(), r.samples());
    }
    for (JsonNode r : served) {
      assertThat(JsonCodec.MAPPER.treeToValue(r, KernelResult.class).samples()).as("served with its samples")
          .isNotEmpty().isEqualTo(sent.get(r.get("id").asText()));
    }
  }

  /** The record's JSON as the protocol writes it, its samples an empty list. */
  private static String withoutSamples(KernelResult r) throws Exception {
    ObjectNode tree = (ObjectNode) JsonCodec.MAPPER.readTree(JsonCodec.toJson(r));
    tree.putArray("samples");
    return JsonCodec.MAPPER.writeValueAsString(tree);
  }

  private static KernelResult result(long stride) {
    return Fixtures.result(null, null, "json-agent", GPU, stride, true, Instant.now());
  }

  /** The JSON with an 'A' in the forbidden two-byte form (C1 81) before the method: Jackson reads it as 'A'. */
  private static byte[] withOverlongA(byte[] json) {
    int at = new String(json, StandardCharsets.UTF_8).indexOf("\"method\":\"") + "\"method\":\"".length();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    bytes.write(json, 0, at);
    bytes.write(0xC1);
    bytes.write(0x81);
    bytes.write(json, at, json.length - at);
    return bytes.toByteArray();
  }

  private String storedJson(KernelResult result) throws Exception {
    try (Connection c = DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
        ResultSet rs = c.createStatement().executeQuery("SELECT result_json FROM results WHERE id = '" + result.id()
            + "'")) {
      assertThat(rs.next()).as("stored: %s", result.id()).isTrue();
      return ResultJson.text(rs.getBytes(1));
    }
  }
}
