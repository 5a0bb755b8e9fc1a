package io.busload.protocol.bridge;

import io.busload.protocol.JsonCodec;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;

/**
 * The bridge carries JSON objects, not records: the same JSON the records' codecs put on the cluster's wire, so a
 * message reads the same whichever way it came.
 */
public final class BridgeJson {
  private BridgeJson() {}

  public static JsonObject toJson(Object record) {
    return new JsonObject(Buffer.buffer(JsonCodec.toJson(record)));
  }

  /** @throws IllegalArgumentException starting "malformed TYPE:" when the JSON is not that record */
  public static <T> T fromJson(JsonObject json, Class<T> type) {
    return JsonCodec.fromJson(json.toBuffer().getBytes(), type);
  }
}
