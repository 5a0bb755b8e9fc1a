package io.busload.protocol.compat.vertx;

/**
 * How Vert.x's clustered event bus shows a frame that it refuses before any consumer sees it. Vert.x reads frames
 * in its own inbound connection and offers no hook there, so the coordinator's count of refused frames
 * ({@code WireRefusals}) recognises them by the names of the implementation classes that read them and by the
 * texts of their errors. These are not Vert.x API; {@code VertxWireTest} checks each against the Vert.x on the class
 * path.
 */
public final class VertxWire {
  /** Decodes a clustered message, and logs (at ERROR, under its class name) a frame it refuses without a reply. */
  public static final String MESSAGE_READER = "io.vertx.core.eventbus.impl.clustered.ClusteredMessage";
  /** Reads frames off a member's connection: a frame whose inner lengths lie throws from here. */
  public static final String FRAME_READER = "io.vertx.core.eventbus.impl.clustered.InboundConnection";
  /** How {@link #MESSAGE_READER}'s refusal of a wire version from the future begins. */
  public static final String WIRE_VERSION_TEXT = "Invalid wire protocol version";
  /** How {@link #MESSAGE_READER}'s refusal of a codec name nobody registered begins. */
  public static final String UNKNOWN_CODEC_TEXT = "No message codec registered";

  private VertxWire() {}

  /** True when {@code failure} was thrown while Vert.x read a frame off a member's connection. */
  public static boolean readingFrame(Throwable failure) {
    for (StackTraceElement frame : failure.getStackTrace()) {
      if (frame.getClassName().equals(FRAME_READER)) {
        return true;
      }
    }
    return false;
  }
}
