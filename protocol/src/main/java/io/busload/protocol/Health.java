package io.busload.protocol;

import java.util.List;

/**
 * What NVML said of the GPU's health around one case: its error counters when the run began and again after this
 * case, and the XID critical errors reported meanwhile (an NVML event set registered when the run began). The last
 * case of a run therefore carries the whole run's change. A result without it (the CPU backend, no NVML, results
 * from before it existed) says "not read"; a counter that was not read is null in {@link HealthCounters}.
 *
 * @param atRunStart the counters read before the run's first case
 * @param afterCase the counters read after this case
 * @param xids XID numbers NVML reported since the run began, in the order seen; null where XID events could not be
 *     watched (no event API, or the GPU does not support XID events), empty when watched and none came
 * @param note where it was read ({@code NVML, driver 580.82.07}), and which reads NVML did not give
 */
public record Health(HealthCounters atRunStart, HealthCounters afterCase, List<Long> xids, String note) {
  public Health {
    if (atRunStart == null || afterCase == null) {
      throw new IllegalArgumentException("health: atRunStart and afterCase are required (HealthCounters.NONE when"
          + " nothing was read)");
    }
    xids = xids == null ? null : List.copyOf(xids);
  }
}
