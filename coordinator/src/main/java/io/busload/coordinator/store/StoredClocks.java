package io.busload.coordinator.store;

import io.busload.protocol.Clocks;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import io.busload.protocol.Sampling;

/**
 * A stored result's clocks as typed fields (issue 12's {@link Clocks}), for the reads that compare results without
 * loading them whole. V7's {@code clocks_reading} column says whether they were read; the figures of one that was read
 * come from the result as stored, because V7 keeps the SM clock's range in columns but not the memory clock's, and
 * the verdicts name both.
 */
final class StoredClocks {
  /** What {@link #of} takes, in its order: the reading, and the stored result only where its clocks were read. */
  static final String COLUMNS = "clocks_reading, CASE WHEN clocks_reading = 'READ' THEN result_json END";

  private StoredClocks() {}

  /**
   * The clocks of a result from its {@code clocks_reading} and (where READ) its {@code result_json}; null for a result
   * stored before issue 12, whose clocks exist only in its method's words.
   */
  static Clocks of(String reading, byte[] resultJson) {
    if (reading == null) {
      return null;
    }
    return switch (Clocks.Reading.valueOf(reading)) {
      case READ -> {
        Sampling sampling = JsonCodec.fromJson(ResultJson.bytes(resultJson), KernelResult.class).sampling();
        if (sampling == null) {
          throw new IllegalStateException("results.clocks_reading is READ but the stored result has no sampling");
        }
        yield sampling.clocks();
      }
      // Nothing more is stored for these: the note (why not) stays in result_json, and no comparison reads it.
      case NOT_READ -> Clocks.notRead(null);
      case UNAVAILABLE -> Clocks.unavailable(null);
    };
  }
}
