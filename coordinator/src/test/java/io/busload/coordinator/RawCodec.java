package io.busload.coordinator;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.MessageCodec;

/**
 * Writes a buffer as it is, under whatever codec name it is given: a test's way to put any bytes on the wire where
 * the protocol's codec of that name is expected, whether the frame the codec would write or a broken one.
 */
public record RawCodec(String name) implements MessageCodec<Buffer, Buffer> {
  @Override
  public void encodeToWire(Buffer buffer, Buffer body) {
    buffer.appendBuffer(body);
  }

  @Override
  public Buffer decodeFromWire(int pos, Buffer buffer) {
    return buffer.slice(pos, buffer.length());
  }

  @Override
  public Buffer transform(Buffer body) {
    return body;
  }

  @Override
  public byte systemCodecID() {
    return -1;
  }
}
