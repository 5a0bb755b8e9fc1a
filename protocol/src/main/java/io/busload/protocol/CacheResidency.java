package io.busload.protocol;

/**
 * A case's working set against the device's L2: whether its bandwidth can be DRAM's, or may be the
 * cache's. Below {@link #FACTOR} times L2 a kernel's data may stay in L2 between launches and the figure is the
 * cache's, so such a result says so, and says whether the user asked for it.
 *
 * @param residency the verdict
 * @param workingSetBytes bytes of every buffer the case allocates: what L2 could hold between launches (useful
 *     bytes would undercount a strided read, whose every touched sector is cached)
 * @param l2Bytes the device's L2 when measured; 0 when unknown
 */
public record CacheResidency(Residency residency, long workingSetBytes, long l2Bytes) {
  /** A working set under this many L2s may be served from L2. */
  public static final int FACTOR = 4;

  /** The verdict on one case. */
  public enum Residency {
    /** At least {@link #FACTOR} times L2: the bandwidth is the memory's. */
    ABOVE_L2,
    /** Under {@link #FACTOR} times L2 without the user asking: the bandwidth may be the cache's. */
    CACHE_RESIDENT,
    /** Under {@link #FACTOR} times L2 because the user asked for a cache study. */
    CACHE_STUDY,
    /** The device reports no L2 size (a CPU): nothing to compare with. */
    L2_UNKNOWN
  }

  public CacheResidency {
    if (residency == null) {
      throw new IllegalArgumentException("cache.residency: missing");
    }
    if (workingSetBytes < 0 || l2Bytes < 0) {
      throw new IllegalArgumentException("cache: negative bytes");
    }
  }

  /** The verdict for a working set on a device with {@code l2Bytes} of L2, for a deliberate study or not. */
  public static CacheResidency of(long workingSetBytes, long l2Bytes, boolean cacheStudy) {
    Residency residency;
    if (l2Bytes <= 0) {
      residency = Residency.L2_UNKNOWN;
    } else if (workingSetBytes >= FACTOR * l2Bytes) {
      residency = Residency.ABOVE_L2;
    } else {
      residency = cacheStudy ? Residency.CACHE_STUDY : Residency.CACHE_RESIDENT;
    }
    return new CacheResidency(residency, workingSetBytes, l2Bytes);
  }

  /** Whether the bandwidth may be L2's rather than the memory's (asked for or not). */
  public boolean underL2() {
    return residency == Residency.CACHE_RESIDENT || residency == Residency.CACHE_STUDY;
  }
}
