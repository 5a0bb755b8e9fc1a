package io.busload.agent.cuda;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The host copies of device buffers, kept from case to case on one GPU. A fresh {@link Arena#allocate} zeroes its
 * memory, and the first touch of every page faults: on an H100 that was 29 s of the coalescing suite's 83 s, on the
 * device's worker thread, before any kernel ran (JFR, 2026-11-24). A kept segment's pages are already mapped, and
 * nothing reads what an earlier case left in it: inputs are filled in full, outputs are downloaded in full before
 * a check reads them.
 *
 * <p>One per device, used by its worker thread only; at most {@link #keptBytes} stay kept between cases.
 */
final class HostStaging implements AutoCloseable {
  /** Kept between cases: more than the host copies of any one case of the default suites. */
  static final long DEFAULT_KEPT_BYTES = 4L << 30;

  private record Kept(Arena arena, MemorySegment whole) {}

  private final long keptBytes;
  private final List<Kept> free = new ArrayList<>();
  private final Map<MemorySegment, Kept> lent = new IdentityHashMap<>();
  private long allocations;

  HostStaging() {
    this(DEFAULT_KEPT_BYTES);
  }

  HostStaging(long keptBytes) {
    this.keptBytes = keptBytes;
  }

  /** {@code bytes} of host memory, 4 KiB aligned; its contents are whatever the last case left there. */
  MemorySegment take(long bytes) {
    Kept best = null;
    for (Kept kept : free) {
      if (kept.whole.byteSize() >= bytes && (best == null || kept.whole.byteSize() < best.whole.byteSize())) {
        best = kept;
      }
    }
    if (best != null) {
      free.remove(best);
    } else {
      Arena arena = Arena.ofShared(); // filled and checked on all cores
      best = new Kept(arena, arena.allocate(Math.max(bytes, 1), 4096));
      allocations++;
    }
    MemorySegment slice = best.whole.asSlice(0, bytes);
    lent.put(slice, best);
    return slice;
  }

  /** Gives back what {@link #take} lent; the smallest kept segments are freed while more than the limit is kept. */
  void give(MemorySegment segment) {
    Kept kept = lent.remove(segment);
    if (kept == null) {
      throw new IllegalArgumentException("segment: not lent by this staging area");
    }
    free.add(kept);
    long total = free.stream().mapToLong(k -> k.whole.byteSize()).sum();
    free.sort((a, b) -> Long.compare(a.whole.byteSize(), b.whole.byteSize()));
    while (total > keptBytes && !free.isEmpty()) {
      Kept smallest = free.removeFirst();
      total -= smallest.whole.byteSize();
      smallest.arena.close();
    }
  }

  /** Segments allocated so far (the rest were reused). */
  long allocations() {
    return allocations;
  }

  /** Bytes kept for the next case. */
  long keptNow() {
    return free.stream().mapToLong(k -> k.whole.byteSize()).sum();
  }

  @Override
  public void close() {
    free.forEach(k -> k.arena.close());
    free.clear();
    lent.values().forEach(k -> k.arena.close());
    lent.clear();
  }
}
