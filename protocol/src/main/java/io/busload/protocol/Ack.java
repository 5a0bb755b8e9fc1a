package io.busload.protocol;

/** The answer to a request: {@code ok} with the id it concerns, or refused with a reason the sender logs. */
public record Ack(int schemaVersion, String id, boolean ok, String reason) implements Protocol.Message {

  public static Ack ok(String id) {
    return new Ack(Protocol.SCHEMA_VERSION, id, true, null);
  }

  public static Ack refused(String id, String reason) {
    return new Ack(Protocol.SCHEMA_VERSION, id, false, reason);
  }
}
