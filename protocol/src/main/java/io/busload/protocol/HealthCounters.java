package io.busload.protocol;

/**
 * A GPU's error counters at one moment, as NVML gives them (read-only queries; nothing is reset). Each field is null
 * where it was not read: the call is missing from this NVML, the GPU answers NOT_SUPPORTED (retired pages on a GPU
 * that remaps rows, remapped rows on one older than Ampere, ECC on a GPU with ECC off), or it failed. Null is never
 * written as 0, so "no errors" and "not read" stay apart.
 *
 * @param eccVolatileCorrected corrected (single-bit) ECC errors since the driver loaded
 * @param eccVolatileUncorrected uncorrected (double-bit) ECC errors since the driver loaded
 * @param eccAggregateCorrected corrected ECC errors over the GPU's life (kept in its InfoROM)
 * @param eccAggregateUncorrected uncorrected ECC errors over the GPU's life
 * @param retiredPagesSingleBit pages retired for repeated single-bit errors (GPUs before Ampere)
 * @param retiredPagesDoubleBit pages retired for a double-bit error
 * @param retiredPagesPending a page retirement waits for the next driver load
 * @param remappedRowsCorrectable rows remapped for correctable errors (Ampere and later)
 * @param remappedRowsUncorrectable rows remapped for uncorrectable errors
 * @param remapPending a row remap waits for the next GPU reset
 * @param remapFailure a row remap failed: the GPU ran out of spare rows
 * @param pcieReplays PCIe replays (link-level retransmissions) since the driver loaded
 */
public record HealthCounters(Long eccVolatileCorrected, Long eccVolatileUncorrected, Long eccAggregateCorrected,
    Long eccAggregateUncorrected, Long retiredPagesSingleBit, Long retiredPagesDoubleBit, Boolean retiredPagesPending,
    Long remappedRowsCorrectable, Long remappedRowsUncorrectable, Boolean remapPending, Boolean remapFailure,
    Long pcieReplays) {

  /** Nothing read. */
  public static final HealthCounters NONE = new HealthCounters(null, null, null, null, null, null, null, null, null,
      null, null, null);

  public HealthCounters {
    for (Long count : new Long[] {eccVolatileCorrected, eccVolatileUncorrected, eccAggregateCorrected,
        eccAggregateUncorrected, retiredPagesSingleBit, retiredPagesDoubleBit, remappedRowsCorrectable,
        remappedRowsUncorrectable, pcieReplays}) {
      if (count != null && count < 0) {
        throw new IllegalArgumentException("health counters: counts must be >= 0 or absent (not read), not " + count);
      }
    }
  }

  /** Whether any counter was read. */
  public boolean anyRead() {
    return !equals(NONE);
  }
}
