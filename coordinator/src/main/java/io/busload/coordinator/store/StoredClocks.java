package io.busload.coordinator.store;

import io.busload.protocol.Clocks;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import io.busload.protocol.Sampling;
import java.nio.charset.StandardCharsets;

/**
 * A stored result's clocks as typed fields ({@link Clocks}), for the reads that compare results without
 * loading them whole. {@code clocks_reading} says whether they were read. For a result that was read, SQL hands over
 * its clock columns in a short text ({@code C smMin smMax memMin memMax reasons dropped tooFew}, {@code -} for NULL);
 * only a result stored before V9, which has no memory clock columns, hands over its packed {@code result_json}
 * instead, to be unpacked here. The two are told apart by their first byte: a packed result starts with its format
 * tag (0, 1 or 2), the text with {@code C}.
 */
final class StoredClocks {
  private static final String COLUMN_TEXT = "convert_to(concat_ws(' ', 'C', coalesce(sm_clock_min_mhz::text, '-'),"
      + " coalesce(sm_clock_max_mhz::text, '-'), mem_clock_min_mhz::text, coalesce(mem_clock_max_mhz::text, '-'),"
      + " coalesce(throttle_reasons::text, '-'), coalesce(throttled_samples_dropped::text, '0'),"
      + " coalesce(too_few_clean_samples::text, 'false')), 'UTF8')";
  /** What {@link #of} takes, in its order: the reading, and where it is READ the clocks' text or the stored result. */
  static final String COLUMNS = "clocks_reading, CASE WHEN clocks_reading = 'READ' THEN CASE WHEN mem_clock_min_mhz"
      + " IS NOT NULL THEN " + COLUMN_TEXT + " ELSE result_json END END";

  private StoredClocks() {}

  /**
   * The clocks of a result from its {@code clocks_reading} and (where READ) what {@link #COLUMNS} gave; null for a
   * result stored without them (its agent reported clocks only in its method's words).
   */
  static Clocks of(String reading, byte[] stored) {
    if (reading == null) {
      return null;
    }
    return switch (Clocks.Reading.valueOf(reading)) {
      case READ -> stored.length > 0 && stored[0] == 'C' ? columns(new String(stored, StandardCharsets.UTF_8))
          : unpacked(stored);
      // Nothing more is stored for these: the note (why not) stays in result_json, and no comparison reads it.
      case NOT_READ -> Clocks.notRead(null);
      case UNAVAILABLE -> Clocks.unavailable(null);
    };
  }

  private static Clocks columns(String text) {
    String[] f = text.split(" ");
    return new Clocks(Clocks.Reading.READ, null, integer(f[1]), integer(f[2]), integer(f[3]), integer(f[4]),
        f[5].equals("-") ? null : Long.valueOf(f[5]), Integer.parseInt(f[6]), Boolean.parseBoolean(f[7]));
  }

  private static Integer integer(String field) {
    return field.equals("-") ? null : Integer.valueOf(field);
  }

  private static Clocks unpacked(byte[] resultJson) {
    Sampling sampling = JsonCodec.fromJson(ResultJson.bytes(resultJson), KernelResult.class).sampling();
    if (sampling == null) {
      throw new IllegalStateException("results.clocks_reading is READ but the stored result has no sampling");
    }
    return sampling.clocks();
  }
}
