package io.busload.coordinator.fleet;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.deser.DeserializationProblemHandler;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.eventbus.MessageCodec;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * A result as it arrived over the clustered event bus: the record, and the JSON the agent sent when that JSON can
 * be stored as it is (null when it cannot, and the store encodes the record instead).
 *
 * <p>Decoding a result with the protocol's codec and encoding it again for the store took 9.3 us of
 * CPU (6.6 us of it decoding, mostly the JDK's {@code Double.parseDouble}, big-integer arithmetic for 17-digit
 * doubles). {@link Codec} decodes with Jackson's fast double parser and keeps the bytes it read: 3.8 us.
 */
record ReceivedResult(KernelResult result, byte[] json) {

  /**
   * Decodes results that arrive from other members; installed on the coordinator under the protocol codec's name
   * by {@link #install}. Vert.x picks the codec to send a {@link KernelResult} by its class (the protocol's codec,
   * still registered as the default), and picks the codec to decode a received message by the name on the wire
   * (this one). Only a coordinator consumes results from the wire, so only it sees this type. Sent by name, it
   * writes a {@link ReceivedResult}'s bytes as they came, in the protocol's frame: live results go to dashboards
   * without being encoded again.
   */
  static final class Codec implements MessageCodec<Object, Object> {
    static final String NAME = new JsonCodec<>(KernelResult.class).name();
    private static final JsonCodec<KernelResult> PROTOCOL = new JsonCodec<>(KernelResult.class);
    /**
     * The protocol's mapping (same modules, unknown fields tolerated), with Jackson's fast double parser: 3.8 us
     * a result instead of 6.6 us. A key given twice is not refused: Jackson, which checked the record, and
     * PostgreSQL's jsonb, which reads the stored JSON, both take the last value.
     */
    private static final ObjectReader READER = JsonCodec.MAPPER.readerFor(KernelResult.class)
        .with(StreamReadFeature.USE_FAST_DOUBLE_PARSER)
        .withHandler(new UnknownFields());
    /** Set by {@link UnknownFields} during one decode on this thread. */
    private static final ThreadLocal<boolean[]> UNKNOWN = ThreadLocal.withInitial(() -> new boolean[1]);

    @Override
    public void encodeToWire(Buffer buffer, Object body) {
      if (body instanceof ReceivedResult received && received.json() != null) {
        buffer.appendInt(received.json().length).appendBytes(received.json());
      } else {
        PROTOCOL.encodeToWire(buffer, body instanceof ReceivedResult received ? received.result()
            : (KernelResult) body);
      }
    }

    /**
     * The protocol's frame (a length prefix, then JSON), checked the same way before anything is allocated.
     * Throws {@link IllegalArgumentException} for what cannot be read, which the intake refuses as malformed.
     */
    @Override
    public Object decodeFromWire(int pos, Buffer buffer) {
      if (pos < 0 || buffer.length() - pos < 4) {
        throw new IllegalArgumentException("malformed KernelResult: no length prefix");
      }
      int length = buffer.getInt(pos);
      int available = buffer.length() - pos - 4;
      if (length < 0 || length > available) {
        throw new IllegalArgumentException("malformed KernelResult: body length " + length + " but " + available
            + " byte(s) follow");
      }
      return decode(buffer.getBytes(pos + 4, pos + 4 + length));
    }

    /** One result's JSON, as {@link #decodeFromWire} reads the body of its frame. */
    static ReceivedResult decode(byte[] json) {
      boolean[] unknown = UNKNOWN.get();
      unknown[0] = false;
      KernelResult result;
      boolean trailing;
      try (JsonParser parser = READER.createParser(json)) {
        result = READER.readValue(parser);
        trailing = parser.nextToken() != null;
      } catch (IOException | RuntimeException e) {
        String detail = e instanceof com.fasterxml.jackson.core.JsonProcessingException j ? j.getOriginalMessage()
            : e.getMessage();
        throw new IllegalArgumentException("malformed KernelResult: " + detail, e);
      }
      if (result == null) {
        throw new IllegalArgumentException("malformed KernelResult: null");
      }
      return new ReceivedResult(result, storable(json, unknown[0] || trailing) ? json : null);
    }

    /**
     * Whether the received bytes can be the stored JSON: exactly one JSON object (nothing before or after it, which
     * PostgreSQL's jsonb would refuse), only fields the record has (the record's fields are all checked; others
     * could be anything, of any size), and valid UTF-8 (Jackson reads some invalid sequences that PostgreSQL
     * refuses).
     */
    private static boolean storable(byte[] json, boolean otherFields) {
      if (otherFields || json.length < 2 || json[0] != '{' || json[json.length - 1] != '}') {
        return false;
      }
      for (byte b : json) {
        if (b < 0) {
          return validUtf8(json);
        }
      }
      return true;
    }

    private static boolean validUtf8(byte[] json) {
      try {
        StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(json));
        return true;
      } catch (CharacterCodingException e) {
        return false;
      }
    }

    /** Delivered in this JVM without the wire: the record, as the protocol's codec delivers it. */
    @Override
    public Object transform(Object body) {
      return body instanceof ReceivedResult received ? received.result() : body;
    }

    @Override
    public String name() {
      return NAME;
    }

    @Override
    public byte systemCodecID() {
      return -1;
    }
  }

  /** Makes {@code bus} decode received results with {@link Codec}; idempotent. */
  static void install(EventBus bus) {
    bus.unregisterCodec(Codec.NAME);
    bus.registerCodec(new Codec());
  }

  /** Skips a field the record does not have, as the protocol's mapping does, and notes that it was there. */
  private static final class UnknownFields extends DeserializationProblemHandler {
    @Override
    public boolean handleUnknownProperty(DeserializationContext context, JsonParser parser,
        JsonDeserializer<?> deserializer, Object beanOrClass, String propertyName) throws IOException {
      Codec.UNKNOWN.get()[0] = true;
      parser.skipChildren();
      return true;
    }
  }
}
