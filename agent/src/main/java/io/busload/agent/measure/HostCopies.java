package io.busload.agent.measure;

import io.busload.kernels.Buffer;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.stream.LongStream;

/** Comparisons of two sets of host copies of one program's buffers. */
final class HostCopies {
  /** Compared in pieces of this size, on all cores. */
  private static final long PIECE_BYTES = 16L << 20;

  private HostCopies() {}

  /** Whether every buffer but the inputs holds the same bytes in {@code a} and {@code b} (same indexes as {@code buffers}). */
  static boolean sameOutputs(List<Buffer> buffers, List<MemorySegment> a, List<MemorySegment> b) {
    for (int i = 0; i < buffers.size(); i++) {
      if (buffers.get(i).role() != Buffer.Role.INPUT && !same(a.get(i), b.get(i))) {
        return false;
      }
    }
    return true;
  }

  static boolean same(MemorySegment a, MemorySegment b) {
    if (a.byteSize() != b.byteSize()) {
      return false;
    }
    long size = a.byteSize();
    long pieces = Math.ceilDiv(size, PIECE_BYTES);
    return LongStream.range(0, pieces).parallel().allMatch(p -> {
      long from = p * PIECE_BYTES;
      long to = Math.min(size, from + PIECE_BYTES);
      return MemorySegment.mismatch(a, from, to, b, from, to) < 0;
    });
  }
}
