package io.busload.analysis.health;

/**
 * One finding behind a verdict.
 *
 * @param kind what was found
 * @param state the verdict this finding alone calls for
 * @param value the figure that crossed the rule (a count, a count's growth, a fraction), for printers and filters
 * @param sentence the finding in words, with its numbers
 */
public record HealthReason(Kind kind, HealthState state, double value, String sentence) {

  /** What a rule found; docs/design/health.md gives each rule's threshold and why. */
  public enum Kind {
    /** Uncorrected ECC errors since the driver loaded (absolute) or during the run. */
    ECC_UNCORRECTED,
    /** A row remap failed: no spare rows left. */
    REMAP_FAILED,
    /** XID critical errors reported during the run. */
    XID,
    /** Corrected ECC errors grew during the run. */
    ECC_CORRECTED_GROWTH,
    /** Uncorrected errors over the GPU's life, none since the driver loaded: repaired, but it has happened. */
    ECC_UNCORRECTED_HISTORY,
    /** A row remap or page retirement waits for a reset or driver reload. */
    REPAIR_PENDING,
    /** Rows were remapped or pages retired during the run. */
    REPAIR_GROWTH,
    /** PCIe replays grew during the run. */
    PCIE_REPLAYS,
    /** The memcpy ceiling's fraction of the theoretical peak is below the model's floor. */
    BANDWIDTH_BELOW_FLOOR,
    /** A throttling clock event reason held through most of the run's cases. */
    THROTTLE_PERSISTS
  }
}
