package io.busload.analysis.health;

import java.util.List;

/**
 * What one run says of a device's health.
 *
 * @param atRunStart the counters before the run's first case
 * @param atRunEnd the counters after its last case
 * @param xids XID numbers reported during the run; null where XID events were not watched
 * @param memcpyFraction the run's memcpy-d2d bandwidth over the device's theoretical peak; null without a valid
 *     memcpy result or a known peak
 * @param floor the model's memcpy floor; null where the model has none
 * @param timedCases cases of the run whose clocks were read while timed
 * @param throttledCases those of them during which a throttling reason was seen
 * @param throttleReasons the throttling reasons (NVML bits, benign ones left out) seen in every throttled case
 */
public record HealthInputs(HealthCounts atRunStart, HealthCounts atRunEnd, List<Long> xids, Double memcpyFraction,
    MemcpyFloor floor, int timedCases, int throttledCases, long throttleReasons) {
  public HealthInputs {
    atRunStart = atRunStart == null ? HealthCounts.NONE : atRunStart;
    atRunEnd = atRunEnd == null ? HealthCounts.NONE : atRunEnd;
    xids = xids == null ? null : List.copyOf(xids);
    if (timedCases < 0 || throttledCases < 0 || throttledCases > timedCases) {
      throw new IllegalArgumentException("health inputs: 0 <= throttledCases <= timedCases, not " + throttledCases
          + " of " + timedCases);
    }
  }

  /**
   * One run's inputs, the throttling counted from each timed case's clock event reasons (NVML bits, OR-ed over its
   * samples): a case throttled when a bit outside {@code benign} was set, and the reasons kept are those set in every
   * throttled case.
   */
  public static HealthInputs ofRun(HealthCounts atRunStart, HealthCounts atRunEnd, List<Long> xids,
      Double memcpyFraction, MemcpyFloor floor, List<Long> caseReasons, long benign) {
    int throttled = 0;
    long persisting = ~0L;
    for (long reasons : caseReasons) {
      long bits = reasons & ~benign;
      if (bits != 0) {
        throttled++;
        persisting &= bits;
      }
    }
    return new HealthInputs(atRunStart, atRunEnd, xids, memcpyFraction, floor, caseReasons.size(), throttled,
        throttled == 0 ? 0 : persisting);
  }
}
