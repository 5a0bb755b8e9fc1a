package io.busload.agent.cuda;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;

/**
 * The host copies of device buffers, kept from case to case on one GPU. A fresh {@link Arena#allocate} zeroes its
 * memory, and the first touch of every page faults: on an H100 that was 29 s of the coalescing suite's 83 s, on the
 * device's worker thread, before any kernel ran (JFR, 2026-11-24). A kept segment's pages are already mapped, and
 * nothing reads what an earlier case left in it: inputs are filled in full, outputs are downloaded in full before
 * a check reads them.
 *
 * <p>A new segment comes from the C library's {@code aligned_alloc}, not {@link Arena#allocate}: the arena zeroes what it
 * allocates on the calling thread, which was 3.5 s of an H200's 60 s coalescing suite on the device's worker thread
 * (async-profiler, 2026-11-28), and nothing here needs zeroes. Its pages are first touched on all cores, so the
 * kernel maps them in parallel, before the segment is page-locked.
 *
 * <p>Each segment is page-locked once where the driver allows it ({@link Pinning}), so that the uploads and downloads
 * around every check run at the copy engines' pinned rate instead of through the driver's pageable staging.
 *
 * <p>One per device, used by its worker thread only; at most {@link #keptBytes} stay kept between cases.
 */
final class HostStaging implements AutoCloseable {
  /**
   * Kept between cases: an eighth of the host's memory, from 4 to 16 GiB. More than the host copies of any one case of
   * the default suites (checked copies included), and enough on a GPU host to keep most sizes of a suite, so that a
   * case seldom allocates and pins anew.
   */
  static final long DEFAULT_KEPT_BYTES = Math.clamp(hostMemoryBytes() / 8, 4L << 30, 16L << 30);

  /** The host's memory from /proc/meminfo ({@code MemTotal}); 0 where it cannot be read (then 4 GiB are kept). */
  static long hostMemoryBytes() {
    try (var lines = java.nio.file.Files.lines(java.nio.file.Path.of("/proc/meminfo"))) {
      return lines.filter(l -> l.startsWith("MemTotal:")).findFirst()
          .map(l -> Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024).orElse(0L);
    } catch (java.io.IOException | RuntimeException e) {
      return 0;
    }
  }

  /** Page-locks host memory for the copy engines, and releases it before the memory is freed. */
  interface Pinning {
    Pinning NONE = new Pinning() {
      @Override
      public boolean pin(MemorySegment segment) {
        return false;
      }

      @Override
      public void unpin(MemorySegment segment) {}
    };

    /** Whether {@code segment} is now page-locked; false leaves it pageable (still correct, slower copies). */
    boolean pin(MemorySegment segment);

    void unpin(MemorySegment segment);
  }

  private record Kept(Arena arena, MemorySegment whole, boolean pinned) {}

  private final long keptBytes;
  private final Pinning pinning;
  private final List<Kept> free = new ArrayList<>();
  private final Map<MemorySegment, Kept> lent = new IdentityHashMap<>();
  private long allocations;
  private long pinnedAllocations;

  HostStaging(Pinning pinning) {
    this(DEFAULT_KEPT_BYTES, pinning);
  }

  HostStaging(long keptBytes, Pinning pinning) {
    this.keptBytes = keptBytes;
    this.pinning = pinning;
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
      MemorySegment whole = allocate(bytes, arena);
      best = new Kept(arena, whole, pinning.pin(whole));
      allocations++;
      if (best.pinned) {
        pinnedAllocations++;
      }
    }
    MemorySegment slice = best.whole.asSlice(0, bytes);
    lent.put(slice, best);
    return slice;
  }

  private static final long PAGE = 4096;
  private static final MethodHandle ALIGNED_ALLOC;
  private static final MethodHandle FREE;

  static {
    Linker linker = Linker.nativeLinker();
    ALIGNED_ALLOC = NativeCalls.downcall(linker, linker.defaultLookup(), "aligned_alloc",
        FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG),
        name -> new IllegalStateException("host staging: the C library has no " + name));
    FREE = NativeCalls.downcall(linker, linker.defaultLookup(), "free", FunctionDescriptor.ofVoid(ValueLayout.ADDRESS),
        name -> new IllegalStateException("host staging: the C library has no " + name));
  }

  /**
   * {@code bytes} (whole pages at least one) of page-aligned host memory, freed when {@code arena} closes; its
   * contents are whatever the C library hands out. Every page is touched once, on all cores.
   */
  static MemorySegment allocate(long bytes, Arena arena) {
    long size = Math.max(PAGE, Math.ceilDiv(bytes, PAGE) * PAGE);
    MemorySegment raw;
    try {
      raw = (MemorySegment) ALIGNED_ALLOC.invokeExact(PAGE, size);
    } catch (Throwable t) {
      throw NativeCalls.rethrow(t);
    }
    if (raw.address() == 0) {
      throw new OutOfMemoryError("host staging: aligned_alloc(" + PAGE + ", " + size + ") returned NULL");
    }
    MemorySegment whole = raw.reinterpret(size, arena, HostStaging::free);
    long pages = size / PAGE;
    long parts = Math.max(1, Math.min(Runtime.getRuntime().availableProcessors() * 4L, pages / 256));
    LongStream.range(0, parts).parallel().forEach(p -> {
      for (long page = pages * p / parts; page < pages * (p + 1) / parts; page++) {
        whole.set(ValueLayout.JAVA_BYTE, page * PAGE, (byte) 0);
      }
    });
    return whole;
  }

  private static void free(MemorySegment segment) {
    try {
      FREE.invokeExact(segment);
    } catch (Throwable t) {
      throw NativeCalls.rethrow(t);
    }
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
      free(smallest);
    }
  }

  private void free(Kept kept) {
    if (kept.pinned) {
      pinning.unpin(kept.whole);
    }
    kept.arena.close();
  }

  /** Segments allocated so far (the rest were reused). */
  long allocations() {
    return allocations;
  }

  /** Segments page-locked when they were allocated. */
  long pinnedAllocations() {
    return pinnedAllocations;
  }

  /** Bytes kept for the next case. */
  long keptNow() {
    return free.stream().mapToLong(k -> k.whole.byteSize()).sum();
  }

  @Override
  public void close() {
    free.forEach(this::free);
    free.clear();
    lent.values().forEach(this::free);
    lent.clear();
  }
}
