package io.busload.coordinator.store;

import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import java.sql.Array;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;

/**
 * A result's raw samples live in result_samples (V16), apart from its result_json, so that they can age out while the
 * summary stays. Every reader of result_json joins them back here: the samples of result_samples, or none where they
 * were aged out (rows stored before V16 still carry a copy inside their JSON; result_samples' list wins over it).
 */
final class StoredSamples {
  /** Joins a result {@code r} to its samples {@code s}, for a query that reads {@link #COLUMN}. */
  static final String JOIN = " LEFT JOIN result_samples s ON s.result_id = r.id AND s.measured_at = r.measured_at";
  static final String COLUMN = "s.samples";

  /** SQL, with {@link #JOIN}: whether the row's samples were aged out, rather than never stored. */
  static final String AGED = "(s.samples IS NULL AND r.measured_at < " + SampleRetention.KEPT_SINCE + ")";

  private StoredSamples() {}

  /**
   * A stored result as a redelivery is compared with it: where its samples aged out, whatever samples the sender
   * has are not a difference (the store no longer holds them to compare).
   */
  record Stored(KernelResult result, boolean aged) {
    KernelResult comparableTo(KernelResult incoming) {
      return aged ? withSamples(result, incoming.samples()) : result;
    }
  }

  /** The stored result {@code resultJson} with its samples {@code samples} (null: none kept). */
  static KernelResult result(byte[] resultJson, Array samples) throws SQLException {
    return withSamples(JsonCodec.fromJson(ResultJson.bytes(resultJson), KernelResult.class), doubles(samples));
  }

  /** {@link #result} as the JSON the REST API serves. */
  static String text(byte[] resultJson, Array samples) throws SQLException {
    return new String(JsonCodec.toJson(result(resultJson, samples)), java.nio.charset.StandardCharsets.UTF_8);
  }

  static List<Double> doubles(Array array) throws SQLException {
    if (array == null) {
      return List.of();
    }
    return array.getArray() instanceof Double[] boxed ? Arrays.asList(boxed) : List.of();
  }

  /** {@code r} with {@code samples} as its samples, every other field as it is. */
  static KernelResult withSamples(KernelResult r, List<Double> samples) {
    return r.toBuilder().samples(samples).build();
  }
}
