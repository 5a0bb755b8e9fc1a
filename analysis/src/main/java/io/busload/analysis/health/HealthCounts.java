package io.busload.analysis.health;

/**
 * A GPU's error counters at one moment; null where not read (never 0 for "not read"). Field for field the same as
 * the protocol's record, so that this module needs no protocol.
 */
public record HealthCounts(Long eccVolatileCorrected, Long eccVolatileUncorrected, Long eccAggregateCorrected,
    Long eccAggregateUncorrected, Long retiredPagesSingleBit, Long retiredPagesDoubleBit, Boolean retiredPagesPending,
    Long remappedRowsCorrectable, Long remappedRowsUncorrectable, Boolean remapPending, Boolean remapFailure,
    Long pcieReplays) {

  /** Nothing read. */
  public static final HealthCounts NONE = new HealthCounts(null, null, null, null, null, null, null, null, null, null,
      null, null);
}
