package io.busload.coordinator.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * {@code results.result_json} as stored since V8 (a year of nights on one server): the agent's UTF-8 JSON,
 * kept byte for byte, behind a one-byte format tag.
 *
 * <ul>
 *   <li>{@code 0}: the JSON as it is (rows V8 converted from the text column);
 *   <li>{@code 1}: raw DEFLATE (level 1) with {@code result-json-dictionary-1.json} as its preset dictionary;
 *   <li>{@code 2}: the same with {@code result-json-dictionary-2.json}: the first dictionary, then one real H200
 *       result with the {@code status} and {@code sampling} blocks (about 400 bytes of
 *       JSON whose keys the first dictionary never saw). What {@link #pack} writes since.
 * </ul>
 *
 * <p>Why here and not PostgreSQL's own compression: PostgreSQL compresses a value only when its row exceeds
 * TOAST_TUPLE_THRESHOLD (about 2 KB, fixed when the server is compiled; {@code toast_tuple_target} does not lower it),
 * and a result's row is just under it, so 1.4 KB of JSON per result was stored as it came. A preset dictionary (one
 * result's keys, a device, counters and an origin) lets DEFLATE find repeats in a document too short to hold many of
 * its own: 1,394 bytes of JSON became 290 (StorageBench, docs/results/2026-11-24-storage/).
 *
 * <p>A dictionary is never changed once released: rows name theirs by the tag. A better one gets the next tag.
 */
public final class ResultJson {
  private static final byte PLAIN = 0;
  private static final byte DEFLATE_1 = 1;
  private static final byte DEFLATE_2 = 2;
  private static final byte[] DICTIONARY_1 = resource("result-json-dictionary-1.json");
  private static final byte[] DICTIONARY_2 = resource("result-json-dictionary-2.json");
  /** zlib's state is a few hundred KB: one per thread, reset between uses, rather than one per result. */
  private static final ThreadLocal<Deflater> DEFLATER = ThreadLocal.withInitial(() -> new Deflater(1, true));
  private static final ThreadLocal<Inflater> INFLATER = ThreadLocal.withInitial(() -> new Inflater(true));

  private ResultJson() {}

  /** The stored form of {@code json} (UTF-8): tag 2, compressed. */
  public static byte[] pack(byte[] json) {
    return pack(json, DEFLATE_2);
  }

  /** {@code json} packed under format {@code tag} (1 or 2): for tests and the bench that compares them. */
  static byte[] pack(byte[] json, byte tag) {
    Deflater deflater = DEFLATER.get();
    deflater.reset();
    deflater.setDictionary(dictionary(tag));
    deflater.setInput(json);
    deflater.finish();
    byte[] out = new byte[json.length / 2 + 64];
    out[0] = tag;
    int n = 1;
    while (!deflater.finished()) {
      if (n == out.length) {
        out = Arrays.copyOf(out, out.length * 2);
      }
      n += deflater.deflate(out, n, out.length - n);
    }
    return Arrays.copyOf(out, n);
  }

  /** The agent's JSON bytes back from their stored form; a tag this build does not know fails with it named. */
  public static byte[] bytes(byte[] stored) {
    if (stored == null || stored.length == 0) {
      throw new IllegalArgumentException("result_json: empty");
    }
    return switch (stored[0]) {
      case PLAIN -> Arrays.copyOfRange(stored, 1, stored.length);
      case DEFLATE_1, DEFLATE_2 -> inflate(stored);
      default -> throw new IllegalArgumentException("result_json: unknown format tag " + stored[0]);
    };
  }

  /** {@link #bytes} as text: what the REST API serves. */
  public static String text(byte[] stored) {
    return new String(bytes(stored), StandardCharsets.UTF_8);
  }

  private static byte[] inflate(byte[] stored) {
    Inflater inflater = INFLATER.get();
    inflater.reset();
    inflater.setDictionary(dictionary(stored[0])); // raw DEFLATE carries no header to ask for it: set first
    inflater.setInput(stored, 1, stored.length - 1);
    byte[] out = new byte[stored.length * 6 + 256];
    int n = 0;
    try {
      while (!inflater.finished()) {
        if (n == out.length) {
          out = Arrays.copyOf(out, out.length * 2);
        }
        int got = inflater.inflate(out, n, out.length - n);
        if (got == 0 && inflater.needsInput()) {
          throw new IllegalArgumentException("result_json: compressed data cut short");
        }
        n += got;
      }
    } catch (DataFormatException e) {
      throw new IllegalArgumentException("result_json: not DEFLATE data: " + e.getMessage(), e);
    }
    return Arrays.copyOf(out, n);
  }

  private static byte[] dictionary(byte tag) {
    return switch (tag) {
      case DEFLATE_1 -> DICTIONARY_1;
      case DEFLATE_2 -> DICTIONARY_2;
      default -> throw new IllegalArgumentException("result_json: unknown format tag " + tag);
    };
  }

  private static byte[] resource(String name) {
    try (InputStream in = ResultJson.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + name);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
