package io.busload.kernels;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The fatbin nvcc built from {@code src/main/cuda} (SASS for sm_75..sm_120 and PTX), read from the class path. The
 * build copies the one kept in {@code src/main/fatbin}, so every machine ships the same bytes and only a change to
 * the kernels needs nvcc (src/main/sh/build-fatbin.sh). Its hash goes into every result so a number names the exact
 * code that ran.
 */
public final class Fatbin {
  public static final String RESOURCE = "io/busload/kernels/busload.fatbin";
  /**
   * The timing harness's kernel (src/main/cuda/timing.cu): holds the stream until the host has queued a sample,
   * so the host's enqueue time stays out of it. Arguments: release flag, timed-out flag (both int in host-mapped
   * memory), timeout in ns.
   */
  public static final String BLOCK_ENTRY_POINT = "busload_block_until_released";
  /**
   * Kernel steps a sample may queue behind the blocking kernel. The driver's launch queue holds about a thousand
   * launches; past it the host would block on a held stream until the timeout. Larger batches are timed without.
   */
  public static final int MAX_HELD_LAUNCHES = 512;
  /**
   * How long the blocking kernel waits for the host before giving up; the batch is then timed again without it.
   * Queueing 512 launches takes the host a few milliseconds.
   */
  public static final long BLOCK_TIMEOUT_NS = 100_000_000L;

  private static volatile byte[] cached;

  private Fatbin() {}

  /** The fatbin's bytes (a copy); {@link IllegalStateException} if the build did not produce it. */
  public static byte[] bytes() {
    return load().clone();
  }

  /** SHA-256 of the fatbin, lowercase hex. */
  public static String sha256() {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(load()));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  private static byte[] load() {
    byte[] bytes = cached;
    if (bytes == null) {
      try (InputStream in = Fatbin.class.getClassLoader().getResourceAsStream(RESOURCE)) {
        if (in == null) {
          throw new IllegalStateException(RESOURCE + " is not on the class path: build busload-kernels (./busload build)");
        }
        bytes = in.readAllBytes();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + RESOURCE, e);
      }
      cached = bytes;
    }
    return bytes;
  }
}
