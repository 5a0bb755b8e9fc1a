package io.busload.protocol;

import io.vertx.core.Vertx;
import java.util.List;

/** Registers the codec of every message record, once per Vert.x instance. */
public final class Codecs {
  static final List<Class<? extends Protocol.Message>> MESSAGES = List.of(
      AgentHello.class, Heartbeat.class, RunRequest.class, RunStatus.class, KernelResult.class, Ack.class,
      MemberCertificates.class);

  private Codecs() {}

  public static Vertx register(Vertx vertx) {
    for (Class<? extends Protocol.Message> type : MESSAGES) {
      registerOne(vertx, type);
    }
    return vertx;
  }

  private static <T> void registerOne(Vertx vertx, Class<T> type) {
    vertx.eventBus().registerDefaultCodec(type, new JsonCodec<>(type));
  }
}
