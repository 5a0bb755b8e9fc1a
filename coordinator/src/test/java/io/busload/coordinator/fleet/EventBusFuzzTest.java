package io.busload.coordinator.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.busload.coordinator.AgentDouble;
import io.busload.coordinator.ClusterCoordinator;
import io.busload.coordinator.Coordinator;
import io.busload.coordinator.CoordinatorSettings;
import io.busload.coordinator.Fixtures;
import io.busload.coordinator.Http;
import io.busload.coordinator.RawCodec;
import io.busload.coordinator.TestDatabase;
import io.busload.coordinator.store.DatabaseSettings;
import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.AgentHello;
import io.busload.protocol.DeviceInfo;
import io.busload.protocol.Heartbeat;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import io.busload.protocol.RunStatus;
import io.busload.protocol.cluster.ClusterSettings;
import io.busload.testsupport.LoopbackCluster;
import io.busload.testsupport.Ports;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A member of the cluster throws malformed, truncated, oversized, wrong-type and wrong-version messages
 * at every address the coordinator consumes, through the real clustered event bus (a codec of its own writes
 * whatever bytes it likes under the coordinator's codec names), plus raw frames straight at the event-bus port,
 * while a real agent-side member keeps sending valid results. Nothing may crash, every bad message that reaches
 * a consumer must be refused and counted on /metrics, every good result stored exactly once.
 */
class EventBusFuzzTest {
  private static final String[] ADDRESSES = {
      Addresses.AGENT_HELLO, Addresses.AGENT_HEARTBEAT, Addresses.RUN_STATUS, Addresses.RESULTS};
  private static final Map<String, String> CODEC_OF = Map.of(
      Addresses.AGENT_HELLO, "busload.AgentHello", Addresses.AGENT_HEARTBEAT, "busload.Heartbeat",
      Addresses.RUN_STATUS, "busload.RunStatus", Addresses.RESULTS, "busload.KernelResult");
  private static final int PER_ADDRESS = 25_600;
  private static final int GOOD_RESULTS = 3_000;
  private static final Pattern REFUSED = Pattern.compile(
      "busload_messages_refused_total\\{address=\"([^\"]+)\",reason=\"([^\"]+)\"} ([0-9.E]+)");
  private static final DeviceInfo CPU = Fixtures.cpu("fuzz-host");

  @TempDir Path dir;
  private final DatabaseSettings database = TestDatabase.fresh();
  @AutoClose private final LoopbackCluster cluster = new LoopbackCluster("busload-fuzz");
  private Coordinator coordinator;
  private Vertx good;
  private Vertx fuzzer;
  private AgentDouble agent;
  private Http http;
  private int eventBusPort;

  @BeforeEach
  void start() throws Exception {
    eventBusPort = Ports.free();
    coordinator = ClusterCoordinator.start(cluster, new CoordinatorSettings(Http.tokensIn(dir), "127.0.0.1", 0,
        cluster.settings(ClusterSettings.COORDINATOR, eventBusPort), database));
    good = cluster.join(ClusterSettings.AGENT);
    fuzzer = cluster.join(ClusterSettings.AGENT);
    // The fuzzer writes raw bytes under the coordinator's own codec names (and one name it does not know).
    EventBus bus = fuzzer.eventBus();
    for (Class<?> type : List.of(AgentHello.class, Heartbeat.class, RunStatus.class, KernelResult.class)) {
      bus.unregisterDefaultCodec(type);
      bus.unregisterCodec("busload." + type.getSimpleName());
      bus.registerCodec(new RawCodec("busload." + type.getSimpleName()));
    }
    bus.registerCodec(new RawCodec("busload.Unknown"));
    agent = new AgentDouble(good, Fixtures.hello("fuzz-agent", CPU));
    cluster.onClose(agent);
    http = new Http(coordinator.httpPort());
  }

  @Test
  void coordinatorConsumers_100kBadMessagesWhileGoodResultsFlow_badRefusedAndCountedGoodStoredOnce() throws Exception {
    long started = System.nanoTime();
    GoodSender sender = new GoodSender();
    Thread goodThread = Thread.ofPlatform().name("good-agent").start(sender);

    Random random = new Random(6);
    Map<String, AtomicLong> sent = new LinkedHashMap<>();
    Map<String, AtomicLong> repliedRefused = new ConcurrentHashMap<>();
    AtomicInteger badReplies = new AtomicInteger();
    List<Future<?>> requests = new ArrayList<>();
    long total = 0;
    long making = 0;
    long waiting = 0;
    for (int round = 0; round < PER_ADDRESS; round++) {
      for (String address : ADDRESSES) {
        long t0 = System.nanoTime();
        Bad bad = bad(address, round, random);
        making += System.nanoTime() - t0;
        DeliveryOptions options = bad.codec() == null ? new DeliveryOptions() : new DeliveryOptions().setCodecName(bad.codec());
        if (round % 25 == 0) {
          // One in 25 asks for a reply: it must be a refusal with a reason, never silence or an ok.
          requests.add(fuzzer.eventBus().<Object>request(address, bad.body(), options.setSendTimeout(30_000))
              .onComplete(reply -> {
                if (reply.succeeded() && reply.result().body() instanceof Ack ack && !ack.ok() && ack.reason() != null) {
                  repliedRefused.computeIfAbsent(address, a -> new AtomicLong()).incrementAndGet();
                } else {
                  badReplies.incrementAndGet();
                }
              }));
        } else {
          fuzzer.eventBus().send(address, bad.body(), options);
        }
        sent.computeIfAbsent(address, a -> new AtomicLong()).incrementAndGet();
        total++;
      }
      if (round % 2_500 == 2_499) {
        long t0 = System.nanoTime();
        awaitRefused(total - 10_000, 60);
        waiting += System.nanoTime() - t0;
      }
    }
    Map<String, Double> refused = awaitRefused(total, 60);
    try {
      Future.join(requests).await(60, TimeUnit.SECONDS);
    } catch (ReplyException e) {
      // Counted as bad replies by each request's handler.
    }
    System.out.printf("fuzz: %d sent and counted after %.1f s (making %.1f s, waiting %.1f s)%n", total,
        (System.nanoTime() - started) / 1e9, making / 1e9, waiting / 1e9);

    // Names the coordinator has no codec for, and frames no member would write: Vert.x refuses these before any
    // consumer (wire version, codec lookup, lengths that lie); the coordinator counts them under the wire address
    // (WireRefusals), and a sender that waits sees an error.
    int unknownCodec = 0;
    int unknownCodecErrors = 0;
    for (String address : ADDRESSES) {
      for (int i = 0; i < 250; i++) {
        unknownCodec++;
        try {
          fuzzer.eventBus().request(address, Buffer.buffer("x"), new DeliveryOptions().setCodecName("busload.Unknown")
              .setSendTimeout(10_000)).await(15, TimeUnit.SECONDS);
        } catch (ReplyException e) {
          unknownCodecErrors++;
        }
      }
    }
    RawCounts raw = rawFrames();
    Map<String, Double> afterWire = awaitRefused(total + unknownCodec + raw.refused(), 60);
    System.out.printf("fuzz: unknown codecs and raw frames done after %.1f s%n", (System.nanoTime() - started) / 1e9);

    sender.stop = true;
    goodThread.join(120_000);
    assertThat(sender.failure).as("good sender").isNull();

    // No crash: the coordinator still answers, still knows the good agent, still acks a new result.
    assertThat(http.get("/api/agents").statusCode()).isEqualTo(200);
    assertThat(Http.json(http.get("/api/agents")).get(0).get("online").asBoolean()).isTrue();
    KernelResult last = Fixtures.result(null, null, "fuzz-agent", CPU, 3, true, Instant.now());
    assertThat(agent.result(last).ok()).isTrue();
    sender.acked.add(last.id());

    long counted = 0;
    for (String address : ADDRESSES) {
      double forAddress = refused.entrySet().stream().filter(e -> e.getKey().startsWith(address + " "))
          .mapToDouble(Map.Entry::getValue).sum();
      assertThat(forAddress).as("refused and counted on %s", address).isEqualTo(sent.get(address).get());
      for (String reason : List.of("malformed", "wrong_type", "schema", "invalid")) {
        assertThat(refused).as("%s %s", address, reason).containsKey(address + " " + reason);
      }
      assertThat(repliedRefused.get(address).get()).as("refusal replies on %s", address)
          .isEqualTo(PER_ADDRESS / 25);
      counted += (long) forAddress;
    }
    assertThat(badReplies.get()).as("requests answered with anything but a refusal").isZero();
    assertThat(unknownCodecErrors).as("unknown codec answered with an error").isEqualTo(unknownCodec);
    String wire = WireRefusals.ADDRESS + " ";
    assertThat(afterWire.get(wire + "unknown_codec")).as("unknown codecs counted (sent with and without a reply"
        + " address)").isEqualTo(unknownCodec + raw.unknownCodec());
    assertThat(afterWire.get(wire + "wire_version")).as("future wire versions counted (with and without a reply"
        + " address)").isEqualTo(raw.wireVersion());
    assertThat(afterWire.get(wire + "bad_frame")).as("frames whose lengths lie counted").isEqualTo(raw.badFrame());
    assertThat(afterWire.entrySet().stream().filter(e -> e.getKey().startsWith(wire)).count())
        .as("no other wire reason").isEqualTo(3);

    long rows = count("SELECT count(*) FROM results");
    long distinct = count("SELECT count(DISTINCT id) FROM results");
    Set<UUID> stored = storedIds();
    assertThat(stored).as("every acked good result stored").containsAll(sender.acked);
    assertThat(rows).as("nothing else stored, nothing twice").isEqualTo(sender.acked.size()).isEqualTo(distinct);
    assertThat(count("SELECT count(*) FROM agents")).as("no fuzzed agent stored").isEqualTo(1);
    assertThat(count("SELECT count(*) FROM runs")).isZero();

    System.out.printf("event-bus fuzz: %d bad messages to consumers (%s), %d refused and counted on /metrics %s, "
            + "%d refusal replies checked; %d unknown-codec sends and %d raw frames refused by Vert.x before any "
            + "consumer, all %d counted on /metrics under %s; %d truncated frames dropped with their connections; "
            + "good results: %d sent (%d redelivered), %d acked, %d stored, duplicates %d, lost %d, "
            + "crashes 0; %.1f s%n",
        total, sent, counted, refused, requests.size(), unknownCodec, raw.refused(), unknownCodec + raw.refused(),
        WireRefusals.ADDRESS, raw.truncated(), sender.sent.get(),
        sender.redelivered.get(), sender.acked.size(), rows, rows - distinct,
        sender.acked.size() - stored.stream().filter(sender.acked::contains).count(),
        (System.nanoTime() - started) / 1e9);
  }

  /** One bad message: a body and the codec name to send it under (null: Vert.x picks a system codec). */
  private record Bad(Object body, String codec) {}

  private Bad bad(String address, int round, Random random) {
    String codec = CODEC_OF.get(address);
    byte[] json = JsonCodec.toJson(valid(address));
    return switch (round % 16) {
      // Malformed: random bytes, truncated JSON, a length prefix that lies, JSON of the wrong shape.
      case 0 -> new Bad(random(random, random.nextInt(64)), codec);
      case 1 -> new Bad(framed(java.util.Arrays.copyOf(json, random.nextInt(json.length))), codec);
      case 2 -> new Bad(Buffer.buffer().appendInt(json.length + 1 + random.nextInt(1000)).appendBytes(json), codec);
      case 3 -> new Bad(Buffer.buffer().appendInt(-1 - random.nextInt(1000)).appendBytes(json), codec);
      case 4 -> new Bad(framed("[1,2,3]".getBytes(StandardCharsets.UTF_8)), codec);
      case 5 -> new Bad(framed(mutate(json, "schemaVersion", "\"one\"")), codec);
      // Oversized garbage (1 MiB) now and then.
      case 6 -> new Bad(round % 1600 == 6 ? random(random, 1 << 20) : framed("{\"schemaVersion\":1,".getBytes()), codec);
      // Wrong type: system codecs, another address's record.
      case 7 -> new Bad("not a " + codec, null);
      case 8 -> new Bad(new JsonObject().put("schemaVersion", 1).put("id", UUID.randomUUID().toString()), null);
      case 9 -> new Bad(random.nextInt(), null);
      case 10 -> new Bad(framed(JsonCodec.toJson(valid(other(address)))), CODEC_OF.get(other(address)));
      case 11 -> new Bad(new JsonArray().add(1).add("two"), null);
      // Wrong schema version.
      case 12 -> new Bad(framed(mutate(json, "schemaVersion", String.valueOf(List.of(0, -1, 2, Integer.MAX_VALUE)
          .get(random.nextInt(4))))), codec);
      // Bad fields (and, now and then, oversized ones: 2 MB of text or 200,000 samples).
      case 13 -> new Bad(framed(badField(address, json, round)), codec);
      case 14 -> new Bad(framed(badField(address, json, round + 1)), codec);
      default -> new Bad(framed(round % 1600 == 15 ? oversized(address, json) : badField(address, json, round + 2)),
          codec);
    };
  }

  /** The record this address takes, valid. */
  private static Object valid(String address) {
    return switch (address) {
      case Addresses.AGENT_HELLO -> Fixtures.hello("fuzz-" + UUID.randomUUID(), CPU);
      case Addresses.AGENT_HEARTBEAT -> Fixtures.heartbeat("fuzz-agent",
          new Heartbeat.DeviceState(CPU.id(), null, null, 0, 0));
      case Addresses.RUN_STATUS -> Fixtures.status("run-" + UUID.randomUUID(), "sweep-x", "fuzz-agent", CPU.id(),
          RunStatus.State.RUNNING, 1, 2);
      default -> Fixtures.result(null, null, "fuzz-agent", CPU, 2, true, Instant.now());
    };
  }

  private static String other(String address) {
    return address.equals(Addresses.RESULTS) ? Addresses.RUN_STATUS : Addresses.RESULTS;
  }

  /** A field each address's check must refuse, chosen by {@code round}. */
  private static byte[] badField(String address, byte[] json, int round) {
    String nul = "\"a\\u0000b\"";
    String longText = "\"" + "x".repeat(300) + "\"";
    List<String[]> choices = switch (address) {
      case Addresses.AGENT_HELLO -> List.of(new String[] {"agentId", "null"}, new String[] {"agentId", nul},
          new String[] {"host", longText}, new String[] {"agentVersion", "\"\""},
          new String[] {"startedAt", "\"+100000-01-01T00:00:00Z\""}, new String[] {"devices", "[{\"id\":null}]"});
      case Addresses.AGENT_HEARTBEAT -> List.of(new String[] {"agentId", "null"}, new String[] {"agentId", longText},
          new String[] {"devices", "[{\"deviceId\":null}]"}, new String[] {"devices", "[{\"deviceId\":\"d\",\"completed\":-5}]"},
          new String[] {"sentAt", "\"1900-01-01T00:00:00Z\""}, new String[] {"agentId", nul});
      case Addresses.RUN_STATUS -> List.of(new String[] {"runId", "null"}, new String[] {"state", "null"},
          new String[] {"runId", longText}, new String[] {"completed", "-1"}, new String[] {"deviceId", nul},
          new String[] {"at", "\"-5000-01-01T00:00:00Z\""});
      default -> List.of(new String[] {"id", "null"}, new String[] {"device", "null"}, new String[] {"kernel", longText},
          new String[] {"measuredAt", "\"+200000-01-01T00:00:00Z\""}, new String[] {"kernel", nul},
          new String[] {"params", "{\"stride\":{\"nested\":[1,2]}}"}, new String[] {"bytes", "-8"},
          new String[] {"sweepId", longText}, new String[] {"device", "{\"id\":\"d\",\"kind\":null}"});
    };
    String[] choice = choices.get(Math.floorMod(round, choices.size()));
    return mutate(json, choice[0], choice[1]);
  }

  private static byte[] oversized(String address, byte[] json) {
    return switch (address) {
      case Addresses.RESULTS -> mutate(json, "samples", "[" + "1.0,".repeat(200_000) + "1.0]");
      case Addresses.RUN_STATUS -> mutate(json, "message", "\"" + "m".repeat(2_000_000) + "\"");
      default -> mutate(json, "agentId", "\"" + "a".repeat(2_000_000) + "\"");
    };
  }

  /** The JSON with {@code field} set to the raw JSON {@code value}. */
  private static byte[] mutate(byte[] json, String field, String value) {
    try {
      ObjectNode node = (ObjectNode) JsonCodec.MAPPER.readTree(json);
      node.set(field, JsonCodec.MAPPER.readTree(value));
      return JsonCodec.MAPPER.writeValueAsBytes(node);
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  /** As JsonCodec writes a body: length, then the bytes. */
  private static Buffer framed(byte[] json) {
    return Buffer.buffer(json.length + 4).appendInt(json.length).appendBytes(json);
  }

  private static Buffer random(Random random, int length) {
    byte[] bytes = new byte[length];
    random.nextBytes(bytes);
    return Buffer.buffer(bytes);
  }

  /** What {@link #rawFrames} sent, by how Vert.x must refuse it. */
  private record RawCounts(int wireVersion, int unknownCodec, int badFrame, int truncated) {
    int refused() {
      return wireVersion + unknownCodec + badFrame;
    }
  }

  /**
   * Raw TCP at the coordinator's event-bus port, as no member would write it: frames in a wire version from the
   * future and frames under a codec name nobody registered (with and without a reply address), then either a
   * frame whose address length lies (reading it throws, and that connection's reader is lost for good, so it
   * goes last) or a frame whose bytes never all arrive (a 1 MB or 2 GB length prefix); then the connection drops.
   */
  private RawCounts rawFrames() throws Exception {
    int wireVersion = 0;
    int unknownCodec = 0;
    int badFrame = 0;
    int truncated = 0;
    for (int connection = 0; connection < 12; connection++) {
      try (Socket socket = new Socket("127.0.0.1", eventBusPort)) {
        OutputStream out = socket.getOutputStream();
        for (int i = 0; i < 10; i++) {
          String replyTo = i % 2 == 0 ? null : "__vertx.reply.fuzz-" + connection + "-" + i;
          out.write(frame((byte) 99, null, Addresses.RESULTS, replyTo, "{}"));
          wireVersion++;
          out.write(frame((byte) 2, "busload.Nope", Addresses.RESULTS, replyTo, "{}"));
          unknownCodec++;
        }
        switch (connection % 3) {
          case 0 -> {
            byte[] lying = frame((byte) 2, null, Addresses.RESULTS, null, "{}");
            ByteBuffer.wrap(lying).putInt(7, 1_000_000);
            out.write(lying);
            badFrame++;
          }
          case 1 -> {
            out.write(ByteBuffer.allocate(14).putInt(1_000_000).put((byte) 2).array());
            truncated++;
          }
          default -> {
            out.write(ByteBuffer.allocate(8).putInt(0x7fff_0000).putInt(0).array());
            truncated++;
          }
        }
        out.flush();
      }
    }
    return new RawCounts(wireVersion, unknownCodec, badFrame, truncated);
  }

  /**
   * A frame as Vert.x 5 lays it out: length, wire version, system codec (4: string) or -1 and a codec name, send
   * flag, address, reply address, sender, empty headers, body.
   */
  private static byte[] frame(byte version, String codecName, String address, String replyTo, String body) {
    Buffer frame = Buffer.buffer().appendInt(0).appendByte(version);
    if (codecName == null) {
      frame.appendByte((byte) 2);
    } else {
      byte[] c = codecName.getBytes(StandardCharsets.UTF_8);
      frame.appendByte((byte) -1).appendInt(c.length).appendBytes(c);
    }
    frame.appendByte((byte) 0);
    byte[] a = address.getBytes(StandardCharsets.UTF_8);
    frame.appendInt(a.length).appendBytes(a);
    byte[] r = replyTo == null ? new byte[0] : replyTo.getBytes(StandardCharsets.UTF_8);
    frame.appendInt(r.length).appendBytes(r);
    byte[] sender = "fuzz".getBytes(StandardCharsets.UTF_8);
    frame.appendInt(sender.length).appendBytes(sender).appendInt(4);
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    frame.appendInt(b.length).appendBytes(b);
    frame.setInt(0, frame.length() - 4);
    return frame.getBytes();
  }

  /** The refusal counters on /metrics, by "address reason", once their sum reaches {@code atLeast}. */
  private Map<String, Double> awaitRefused(long atLeast, int seconds) throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (true) {
      Map<String, Double> counts = new LinkedHashMap<>();
      Matcher m = REFUSED.matcher(http.get("/metrics").body());
      while (m.find()) {
        counts.put(m.group(1) + " " + m.group(2), Double.parseDouble(m.group(3)));
      }
      double sum = counts.values().stream().mapToDouble(Double::doubleValue).sum();
      if (sum >= atLeast) {
        return counts;
      }
      if (System.nanoTime() > until) {
        throw new AssertionError("only " + sum + " of " + atLeast + " refusals counted: " + counts);
      }
      Thread.sleep(100);
    }
  }

  /** The real agent side: valid results in windows of 50, each retried until acked, some sent twice. */
  private final class GoodSender implements Runnable {
    final Set<UUID> acked = ConcurrentHashMap.newKeySet();
    final AtomicInteger sent = new AtomicInteger();
    final AtomicInteger redelivered = new AtomicInteger();
    volatile boolean stop;
    volatile Throwable failure;

    @Override
    public void run() {
      try {
        while (sent.get() < GOOD_RESULTS || !stop) {
          List<KernelResult> window = new ArrayList<>();
          for (int i = 0; i < 50; i++) {
            window.add(Fixtures.result(null, null, "fuzz-agent", CPU, 1 + sent.getAndIncrement() % 8, true,
                Instant.now()));
          }
          if (sent.get() % 500 == 0) {
            window.add(window.getFirst());
            redelivered.incrementAndGet();
          }
          for (int attempt = 0; !window.isEmpty(); attempt++) {
            if (attempt > 20) {
              throw new AssertionError(window.size() + " results never acked");
            }
            List<Future<io.vertx.core.eventbus.Message<Ack>>> replies = window.stream()
                .map(r -> good.eventBus().<Ack>request(Addresses.RESULTS, r,
                    new DeliveryOptions().setSendTimeout(10_000))).toList();
            try {
              Future.join(replies).await(30, TimeUnit.SECONDS);
            } catch (ReplyException e) {
              // Some timed out or failed: retried below, as the agent's outbox does.
            }
            List<KernelResult> again = new ArrayList<>();
            for (int i = 0; i < window.size(); i++) {
              Future<io.vertx.core.eventbus.Message<Ack>> reply = replies.get(i);
              if (reply.succeeded() && reply.result().body().ok()) {
                acked.add(window.get(i).id());
              } else {
                again.add(window.get(i));
              }
            }
            window = again;
          }
        }
      } catch (Throwable e) {
        failure = e;
      }
    }
  }

  private long count(String sql) throws Exception {
    try (Connection c = DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
        Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private Set<UUID> storedIds() throws Exception {
    try (Connection c = DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
        Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id FROM results")) {
      Set<UUID> ids = new HashSet<>();
      while (rs.next()) {
        ids.add(rs.getObject(1, UUID.class));
      }
      return ids;
    }
  }
}
